# shellcheck shell=bash
# Sourced by the stack and test scripts: points the AWS SDK at the local
# emulators (the SDK reads AWS_ENDPOINT_URL_<SERVICE>) with dummy credentials.
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:${DYNAMODB_PORT}"
export AWS_ENDPOINT_URL_SQS="http://127.0.0.1:${SQS_PORT}"
export AWS_ENDPOINT_URL_SESV2="http://127.0.0.1:${SES_PORT}"
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=local
export AWS_SECRET_ACCESS_KEY=local
unset AWS_PROFILE AWS_SESSION_TOKEN
