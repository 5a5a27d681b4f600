#!/bin/sh
# The case's repository: the py_shop fixture of the checkout this suite lives in, as a git
# repository (tack serves a git root). Runs in the case's work folder.
set -eu
fixture="$(cd "$(dirname "$0")/../../../fixtures/py_shop" && pwd)"
cp -R "$fixture/." .
git init -q .
git add -A
git -c user.name=eval -c user.email=eval@localhost commit -qm fixture
