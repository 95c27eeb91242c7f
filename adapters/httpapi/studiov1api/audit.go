package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// AuditEntryBody is one change to the studio's data.
type AuditEntryBody struct {
	ID uuid.UUID `json:"id" doc:"Entry id"`
	At time.Time `json:"at" doc:"When the change was made"`
	// GameID is a pointer: null for a change that is not a game's.
	GameID      *uuid.UUID        `json:"gameId" nullable:"true" doc:"The game changed, or null"`
	Action      string            `json:"action" doc:"What was done, noun.verb" example:"api_key.rotate"`
	TargetType  string            `json:"targetType" doc:"What kind of thing changed" example:"api_key"`
	TargetID    string            `json:"targetId" doc:"Its id, when it has one"`
	Environment string            `json:"environment" doc:"live or test, when the change was of one environment"`
	Details     map[string]string `json:"details" doc:"Facts about the change (never a secret)"`
	Actor       AuditActorBody    `json:"actor" doc:"Who made it and from where"`
}

// AuditActorBody is who made a change.
type AuditActorBody struct {
	Kind string `json:"kind" enum:"member,token,operator,api_key,system" doc:"A signed-in member, an access token, the operator API, a game's API key or the service itself"`
	// ID and MemberID are pointers: null when the actor has none.
	ID        *uuid.UUID `json:"id" nullable:"true" doc:"The member's or token's id, or null"`
	MemberID  *uuid.UUID `json:"memberId" nullable:"true" doc:"The member (a token's maker), or null"`
	Name      string     `json:"name" doc:"The member's email, the token's name, operator, …" example:"ada@pixelforge.example"`
	IP        string     `json:"ip" doc:"The client's address, when known"`
	UserAgent string     `json:"userAgent" doc:"The client's user agent, when known"`
}

func toAuditEntryBody(e audit.Entry) AuditEntryBody {
	details := e.Details
	if details == nil {
		details = map[string]string{}
	}
	return AuditEntryBody{ID: e.ID, At: e.At, GameID: e.GameID, Action: e.Action, TargetType: e.TargetType, TargetID: e.TargetID,
		Environment: e.Environment, Details: details,
		Actor: AuditActorBody{Kind: string(e.Actor.Kind), ID: e.Actor.ID, MemberID: e.Actor.MemberID, Name: e.Actor.Name,
			IP: e.Actor.IP, UserAgent: e.Actor.UserAgent}}
}

// AuditPageBody is a page of the audit log.
type AuditPageBody struct {
	Entries []AuditEntryBody `json:"entries" doc:"Entries, newest first"`
	// Next is a pointer: null at the end.
	Next *uuid.UUID `json:"next" nullable:"true" doc:"Send it as before for the older entries; null when there are none"`
}

type auditInput struct {
	From     time.Time `query:"from" doc:"Only changes at or after this time (RFC 3339)"`
	To       time.Time `query:"to" doc:"Only changes before this time (RFC 3339)"`
	MemberID string    `query:"memberId" maxLength:"64" doc:"Only changes by this member (their own or by their tokens); an id no member has lists none"`
	Action   string    `query:"action" maxLength:"64" doc:"Only this action" example:"api_key.rotate"`
	Limit    int       `query:"limit" minimum:"1" maximum:"100" default:"50" doc:"Page size, at most 100"`
	Before   string    `query:"before" maxLength:"64" doc:"The next of the page before: entries older than it"`
}

func (a *api) registerAudit() {
	huma.Register(a.s.StudioAPI, a.group(tagAudit).op(members.Viewer, "studio-audit-log", http.MethodGet, "/studio/v1/audit",
		"The audit log",
		"Changes to the studio's data, newest first, from the console, this API and the operator API: when, who (member, token or operator, with the client's address and user agent), the action, the target and the environment. No API changes or deletes an entry; entries are kept at least a year. Filter by time (`from` inclusive, `to` exclusive), member and action; continue with `before` = the `next` of the page before.",
		http.StatusBadRequest), serve(a.auditLog))
}

func (a *api) auditLog(ctx context.Context, s scope, in *auditInput) (AuditPageBody, error) {
	f := audit.Filter{Action: in.Action, Limit: in.Limit + 1}
	if !in.From.IsZero() {
		f.From = &in.From
	}
	if !in.To.IsZero() {
		f.To = &in.To
	}
	empty := AuditPageBody{Entries: []AuditEntryBody{}}
	if in.MemberID != "" {
		id, err := uuid.Parse(in.MemberID)
		if err != nil {
			return empty, nil
		}
		f.MemberID = &id
	}
	if in.Before != "" {
		id, err := uuid.Parse(in.Before)
		if err != nil {
			return empty, nil
		}
		f.Before = &id
	}
	list, err := a.console.Audit(ctx, s.p, f)
	if err != nil {
		return AuditPageBody{}, err
	}
	page := AuditPageBody{Entries: make([]AuditEntryBody, 0, min(len(list), in.Limit))}
	for i, e := range list {
		if i == in.Limit {
			last := list[i-1].ID
			page.Next = &last
			break
		}
		page.Entries = append(page.Entries, toAuditEntryBody(e))
	}
	return page, nil
}
