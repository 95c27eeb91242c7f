package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/audit"
)

// AuditRepo is the storage of the audit log: it appends and reads entries, and has no way to
// change or delete one (the table's trigger refuses it too).
type AuditRepo struct{ conn }

// Append implements audit.Repo. An entry with no studio takes its game's; with neither, or with
// a studio or game that does not exist, it fails.
func (r *AuditRepo) Append(ctx context.Context, e audit.Entry) error {
	p, err := toDBAuditAppend(e)
	if err != nil {
		return err
	}
	if _, err := r.q.AuditAppend(ctx, p); err != nil {
		return fmt.Errorf("append audit entry %s: %w", e.Action, err)
	}
	return nil
}

// List implements audit.Repo.
func (r *AuditRepo) List(ctx context.Context, f audit.Filter) ([]audit.Entry, error) {
	rows, err := r.q.AuditList(ctx, db.AuditListParams{StudioID: f.StudioID, FromAt: f.From, ToAt: f.To, MemberID: f.MemberID,
		Action: f.Action, BeforeID: f.Before, MaxRows: int32(max(0, min(f.Limit, 10_000)))})
	return toCoreAllOrErr(rows, err, toCoreAuditEntry, "list audit entries of studio %s", f.StudioID)
}

func toDBAuditAppend(e audit.Entry) (db.AuditAppendParams, error) {
	details := e.Details
	if details == nil {
		details = map[string]string{}
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return db.AuditAppendParams{}, fmt.Errorf("audit entry details: %w", err)
	}
	var studioID *uuid.UUID
	if e.StudioID != uuid.Nil {
		studioID = &e.StudioID
	}
	return db.AuditAppendParams{StudioID: studioID, GameID: e.GameID, ActorKind: string(e.Actor.Kind), ActorID: e.Actor.ID,
		ActorMemberID: e.Actor.MemberID, ActorName: e.Actor.Name, Ip: e.Actor.IP, UserAgent: e.Actor.UserAgent,
		Action: e.Action, TargetType: e.TargetType, TargetID: e.TargetID, Environment: e.Environment, Details: raw}, nil
}

func toCoreAuditEntry(r db.AuditEntry) (audit.Entry, error) {
	details := map[string]string{}
	if err := json.Unmarshal(r.Details, &details); err != nil {
		return audit.Entry{}, fmt.Errorf("audit entry %s details: %w", r.ID, err)
	}
	return audit.Entry{ID: r.ID, StudioID: r.StudioID, GameID: r.GameID, At: r.At,
		Actor: audit.Actor{Kind: audit.ActorKind(r.ActorKind), ID: r.ActorID, MemberID: r.ActorMemberID, Name: r.ActorName,
			IP: r.Ip, UserAgent: r.UserAgent},
		Action: r.Action, TargetType: r.TargetType, TargetID: r.TargetID, Environment: r.Environment, Details: details}, nil
}
