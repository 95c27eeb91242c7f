package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
)

// Envelope is the success body of the partner, touchpoint and webhook-management APIs.
type Envelope[T any] struct {
	Data       T         `json:"data" doc:"The payload"`
	StatusCode int       `json:"statusCode" doc:"HTTP status code" example:"200"`
	Message    string    `json:"message" doc:"What happened" example:"OK"`
	RequestID  string    `json:"requestId" doc:"The request id"`
	Timestamp  time.Time `json:"timestamp" doc:"When the answer was made"`
}

// Wrap puts data in the success envelope of the request in ctx.
func Wrap[T any](ctx context.Context, status int, message string, data T) Envelope[T] {
	return Envelope[T]{Data: data, StatusCode: status, Message: message, RequestID: requestIDFrom(ctx), Timestamp: time.Now().UTC()}
}

// Output is the answer of an operation that is a body alone.
type Output[T any] struct {
	Body T
}

// Reply ends a handler whose core call returned v and err: the body conv(v), or err as
// ErrorFrom maps it.
func Reply[V, T any](ctx context.Context, v V, err error, conv func(V) T) (*Output[T], error) {
	if err != nil {
		return nil, ErrorFrom(ctx, err)
	}
	return &Output[T]{Body: conv(v)}, nil
}

// ReplyWrapped is Reply for the APIs that answer in the success envelope: 200 with message.
func ReplyWrapped[V, T any](ctx context.Context, message string, v V, err error, conv func(V) T) (*Output[Envelope[T]], error) {
	if err != nil {
		return nil, ErrorFrom(ctx, err)
	}
	return &Output[Envelope[T]]{Body: Wrap(ctx, http.StatusOK, message, conv(v))}, nil
}

// Put is the answer of a create-or-replace operation (CreateOrReplace): 201 when it created,
// 200 when it replaced, with the same body.
type Put[T any] struct {
	Status int
	Body   T
}

// ReplyPut ends a create-or-replace handler: the body conv(v) with 201 when created, else 200,
// or err as ErrorFrom maps it.
func ReplyPut[V, T any](ctx context.Context, v V, created bool, err error, conv func(V) T) (*Put[T], error) {
	if err != nil {
		return nil, ErrorFrom(ctx, err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return &Put[T]{Status: status, Body: conv(v)}, nil
}

// PageQuery is the paging of a list in the rewards store and partner APIs; embed it in an
// operation's input.
type PageQuery struct {
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"10" doc:"Page size, at most 100"`
	Page  int `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// MaxListDepth bounds how deep a list can be paged: page × limit. Deeper pages would make the
// database skip that many rows for each request.
const MaxListDepth = 10_000

// Resolve implements huma.Resolver: page × limit is at most MaxListDepth (400 VALIDATION_FAILED).
func (q *PageQuery) Resolve(huma.Context) []error { return CheckDepth(q.Page, q.Limit) }

// CheckDepth is the error of a page beyond MaxListDepth, for a paging of another shape.
func CheckDepth(page, limit int) []error {
	if page*limit > MaxListDepth {
		return []error{&huma.ErrorDetail{Location: "query.page", Value: page,
			Message: fmt.Sprintf("page × limit must be at most %d (this is %d × %d): narrow the list with its filters instead", MaxListDepth, page, limit)}}
	}
	return nil
}

// Offset is the number of items before the page.
func (q PageQuery) Offset() int { return (q.Page - 1) * q.Limit }

// Page is a page of a list: {items, page, limit, total}.
type Page[T any] struct {
	Items []T   `json:"items" doc:"The items of this page"`
	Page  int   `json:"page" doc:"Page number, from 1"`
	Limit int   `json:"limit" doc:"Page size"`
	Total int64 `json:"total" doc:"Items in all"`
}

// PageOf converts a page of core values with conv.
func PageOf[C, T any](q PageQuery, list []C, total int64, conv func(C) T) Page[T] {
	p := Page[T]{Items: make([]T, len(list)), Page: q.Page, Limit: q.Limit, Total: total}
	for i, c := range list {
		p.Items[i] = conv(c)
	}
	return p
}

// Map converts a list of core values with conv.
func Map[C, T any](list []C, conv func(C) T) []T {
	out := make([]T, len(list))
	for i, c := range list {
		out[i] = conv(c)
	}
	return out
}

// ParseID reads an id from a path or query: ids are opaque strings to clients, so one that is
// not even well formed is as unknown as any other, and the answer is notFound (a 404), never a
// 400.
func ParseID(s string, notFound error) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, notFound
	}
	return id, nil
}

// Optional returns nil for "" and &s otherwise, for fields that are null when empty.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// GameUUIDHeader is the x-game-uuid header player operations accept; embed it in an input.
type GameUUIDHeader struct {
	GameUUID string `header:"X-Game-Uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player (403 PLAYER_MISMATCH)"`
}
