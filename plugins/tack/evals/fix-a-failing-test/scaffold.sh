#!/bin/sh
# py_shop with a bug planted: HALF takes off 40%, so test_checkout_with_code fails.
set -eu
sh "$(dirname "$0")/../scaffold-py-shop.sh"
sed -i 's/"HALF": 0.50/"HALF": 0.40/' shop/pricing.py
git -c user.name=eval -c user.email=eval@localhost commit -qam "a bug"
