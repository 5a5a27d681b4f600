#!/bin/sh
# The py_shop fixture as the case's repository.
exec sh "$(dirname "$0")/../scaffold-py-shop.sh"
