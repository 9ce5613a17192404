package dashboard

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
)

// SESAPI is the part of SES v2 the mailer uses.
type SESAPI interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// Mailer sends sign-in links through SES, the transport the API uses.
type Mailer struct {
	SES  SESAPI
	From string
}

// SendSignInLink emails link to an owner.
func (m Mailer) SendSignInLink(ctx context.Context, to, link string) error {
	if m.From == "" {
		return errors.New("no From address for sign-in links: set SESAME_DASHBOARD_FROM")
	}
	text := "Sign in to your Sesame dashboard:\n\n" + link + "\n\n" +
		"The link works once, for 15 minutes. If you did not ask for it, ignore this email.\n"
	_, err := m.SES.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(m.From),
		Destination:      &types.Destination{ToAddresses: []string{to}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String("Your Sesame sign-in link"), Charset: aws.String("UTF-8")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String(text), Charset: aws.String("UTF-8")}},
		}},
	})
	if err != nil {
		return fmt.Errorf("ses SendEmail: %w", err)
	}
	return nil
}
