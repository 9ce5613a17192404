#!/usr/bin/env bash
# LocalStack init hook: verify the demo sending domain so sends work at once.
awslocal ses verify-domain-identity --domain demo.sesame.test >/dev/null
echo "verified demo.sesame.test"
