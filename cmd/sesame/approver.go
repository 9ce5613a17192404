package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// callerIdentity is the part of STS the approver uses.
type callerIdentity interface {
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, opts ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

// awsApprover names the approver by the console's AWS principal: the ARN
// STS answers for the credentials in use.
type awsApprover struct {
	STS callerIdentity
}

// Identity is the caller's ARN.
func (a awsApprover) Identity(ctx context.Context) (string, error) {
	out, err := a.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", fmt.Errorf("sts GetCallerIdentity: %w", err)
	}
	if aws.ToString(out.Arn) == "" {
		return "", errors.New("sts GetCallerIdentity answered no ARN")
	}
	return aws.ToString(out.Arn), nil
}

// localApprover names the approver on the local stack, which has no STS:
// the operating system's user, marked local.
type localApprover struct{}

func (localApprover) Identity(context.Context) (string, error) {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	return "local-stack:" + name, nil
}
