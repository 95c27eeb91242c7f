// Package sms implements the players module's OTPSender port: Twilio sends through a
// Twilio-style Messages API (form POST with account credentials, base URL configurable), and Log
// writes the message to the log for local runs.
package sms

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rewardsco/rewards/core/players"
)

// Twilio sends SMS through the Messages API:
// POST {BaseURL}/2010-04-01/Accounts/{AccountSID}/Messages.json with To, From and Body.
type Twilio struct {
	BaseURL    string
	AccountSID string
	AuthToken  string
	From       string
	Client     *http.Client
}

var _ players.OTPSender = (*Twilio)(nil)

// NewTwilio returns a sender with a 10 s timeout.
func NewTwilio(baseURL, accountSID, authToken, from string) *Twilio {
	return &Twilio{BaseURL: strings.TrimRight(baseURL, "/"), AccountSID: accountSID, AuthToken: authToken, From: from,
		Client: &http.Client{Timeout: 10 * time.Second}}
}

// SendOTP implements players.OTPSender.
func (t *Twilio) SendOTP(ctx context.Context, phone, message string) error {
	form := url.Values{"To": {phone}, "From": {t.From}, "Body": {message}}
	endpoint := fmt.Sprintf("%s/2010-04-01/Accounts/%s/Messages.json", t.BaseURL, url.PathEscape(t.AccountSID))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(t.AccountSID, t.AuthToken)
	res, err := t.Client.Do(req)
	if err != nil {
		return fmt.Errorf("sms gateway: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		// The error is logged: it carries the status and the gateway's numeric error code, never
		// the body, whose message names the phone ("The 'To' number +91… is not valid").
		if code := errorCode(body); code != 0 {
			return fmt.Errorf("sms gateway answered %d (error code %d)", res.StatusCode, code)
		}
		return fmt.Errorf("sms gateway answered %d", res.StatusCode)
	}
	return nil
}

// errorCode is the numeric code of a Messages API error body ({"code": 21211, …}), or 0.
func errorCode(body []byte) int64 {
	var e struct {
		Code json.Number `json:"code"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0
	}
	n, err := e.Code.Int64()
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Log "sends" by logging the message, code included. For local development only.
type Log struct {
	Logger *slog.Logger
}

var _ players.OTPSender = Log{}

// SendOTP implements players.OTPSender.
func (l Log) SendOTP(ctx context.Context, phone, message string) error {
	l.Logger.InfoContext(ctx, "SMS (logging sender, not delivered)", "to", phone, "body", message)
	return nil
}
