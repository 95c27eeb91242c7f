// Package httpapi is the shared kit of the documented HTTP API: the server (Huma operations on a
// chi router), the one error model and its mapping from core errors, authentication (API key,
// player token, operator token), the success envelope, paging and path ids. Each module serves
// its own operations from its own package (coinsapi, playersapi, studioapi, webhooksapi, …),
// registered on a Server by the composition root.
//
// # A request's path
//
// chi receives the request (inside the OpenTelemetry handler when tracing is on); observe times
// it and, once answered, counts it by operation and status for /metrics and names its span after
// the route; withRequestContext gives it an id (x-request-id), a logger and an access-log line,
// and turns panics into an opaque 500; limitBody caps the body; sandboxFiles gives every
// response under /files/ X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox;
// default-src 'none'; refuseBadText answers 400 VALIDATION_FAILED to a NUL character (in the
// path, a query parameter, a header or a JSON, form or text body) and to bytes that are not
// UTF-8 (in the path, the query or such a body), which PostgreSQL cannot store.
//
// Huma matches the operation; refuseBadParams refuses a number parameter that is not finite and
// a header parameter that is not UTF-8; Huma validates parameters and body against the schema
// (400 VALIDATION_FAILED with bounded details, unknown fields rejected) and runs the operation's
// middlewares: requireAPIKey maps the Host to an environment (421 otherwise) and the x-api-key
// to a game (401 with its own code for a missing, unknown, rotated-away or other-environment
// key); requirePlayer checks the player token (s.MaybePlayer: only when one is sent, as the
// touchpoint reads take it); requireOperator the operator token. On distribute, deduct,
// federated login and player creation by uuid (s.CoinMovement), a game with
// serverOnlyCoinMovements on also needs its server secret of the environment in x-api-secret
// (rks_live_…/rks_test_…, issued by the operator, stored hashed and looked up by hash like API
// keys; 403 SERVER_SECRET_REQUIRED otherwise), since the API key ships inside game clients.
//
// The module's handler converts the input into one core call. The use case opens a transaction
// through its store port and the postgres adapter runs sqlc queries on that one pgx
// transaction; a money-moving use case runs through idempotency.Do, which claims the key, runs
// the work and records its outcome in the same transaction. A coded error comes back and
// ErrorFrom turns its kind into the status and its code into the body's code.
//
// # Bounded error answers
//
// An error answer is small whatever comes in (bounds.go): at most 20 details, the rest counted
// in the message; all unknown fields of a body are one detail naming those that look like field
// names; a detail's value is a short scalar only, never an object, the body or a field named
// like a credential; a 4xx stays under 16 KiB. Text that is not UTF-8 (path, query, body, a
// header parameter) and a number parameter that is NaN or Infinity are 400 VALIDATION_FAILED.
// Every operation with a body declares 415 UNSUPPORTED_MEDIA_TYPE.
// TestEveryOperationAnswersBadInputAsDeclared sends every operation what an attacker would and
// checks each answer against the documents, and two fuzz targets (FuzzBodies, FuzzPathAndQuery)
// run for a few seconds in "go tool task test".
//
// # The documents
//
// The public document (/openapi.json, a 3.0.3 variant, YAML) holds everything studios and
// partners call; the operator document (/admin/v1/openapi.json, …) the operator API and
// /metrics. Both are committed (openapi.yaml, openapi-operator.yaml, written by "rewards
// openapi" and "rewards openapi operator"); a test fails while either is stale, and the server
// refuses to start when an operation is in the wrong document. The service renders all of them
// itself (serveDocuments).
//
// Each document's servers are the configured hosts (REWARDS_LIVE_HOSTS first, then
// REWARDS_DEV_HOSTS) with the scheme, port and path of REWARDS_PUBLIC_URL, so a generated client
// picks its environment by picking its server; the operator document has the public URL alone
// (the operator API answers on any host). info.version is the release: the value a build sets
// with -ldflags "-X github.com/rewardsco/rewards/app.Version=v1.4.0", else what Go stamps into a
// binary built in a git checkout (the tag, or a pseudo-version naming the commit, +dirty with
// uncommitted changes), else dev. go run and go test stamp nothing, so the committed documents
// say dev and their servers are the default hosts; the logs (listening … version=) and traces
// (service.version) carry the same release.
//
// Schema names become type names in generated clients, so they say what a schema is, not how
// the Go code spells it (schemaName): a named type keeps its name (GameBody), an operation's
// anonymous body is <Input>Request or <Output>Response (CreateStudioRequest,
// RotateKeyResponse), an anonymous field is its parent and field (DeliveryEvent), and a generic
// is named after its argument (PartnerOrderEnvelope, RewardPage, WebhookConfigListEnvelope).
// Renaming an input or output type renames its schema; two types under one name stop the server.
//
// Each operation declares its error codes (documentErrorCodes): its error responses share a
// schema <OperationId>Error whose code is an enum, and each error response's description lists
// the codes of its status. The codes come from the credentials the operation takes (API_KEY_*,
// TOKEN_*, OPERATOR_TOKEN_*, SERVER_SECRET_REQUIRED), from the statuses the kit answers itself
// (VALIDATION_FAILED, UNKNOWN_HOST, INTERNAL, …), and from the operation's description: every
// code of a module's errs.New sentinels that the description names is in the enum, with its
// status declared. A status declared with no code named takes every code of its kind. A test
// fails when a module declares a code no operation names.
//
// Every JSON request body and success body has an example (documentExamples): the whole body,
// built from its schema with each field's example tag (then default, then the first enum
// value), and for a field with none a value its rules accept. A test validates every example
// against its schema.
//
// The 3.1 documents have a webhooks section: the events the service POSTs to studios (the coin
// events COINS_CREDITED, COINS_DEBITED and COINS_REFUNDED; the order events ORDER_SUCCEEDED,
// ORDER_FAILED and ORDER_REFUNDED; PARTNER_WALLET_LOW), with their headers, their bodies
// (CoinEvent, OrderEvent, PartnerWalletLowEvent), the signature scheme and the retry rules
// (webhooksapi/events.go); tests send real events and check the documented headers, fields and
// signature against them. OpenAPI
// 3.0 has no webhooks, so the 3.0.3 variants leave the section out.
//
// Every answer the tests receive is checked against the served documents (package contract): a
// status the handler picks besides the default one is declared with AlsoAnswers, a field that
// can be null is a pointer (a struct that can be null carries _ struct{} `nullable:"true"`).
//
// # Browser games (CORS)
//
// A preflight from an origin that a game of the host's environment allows answers 204 with the
// methods and headers the API takes (never x-api-secret: server secrets stay on servers); a
// request with the game's key from one of its origins gets Access-Control-Allow-Origin and may
// read x-request-id, x-idempotent-replay and Retry-After. Other origins get no CORS headers;
// /admin/v1, /metrics and the provider webhooks never do.
//
// # Adding an operation
//
// (1) Add the query to sql/queries/<module>.sql (a schema change is a new file in
// sql/migrations/) and run "go tool task generate". (2) Add the method to the module's Repo port
// in core/<module>/ports.go, implement it in adapters/postgres/<module>.go and in the module's
// fake, and write the use case in core/<module>/service.go; a refusal is one of the module's
// coded errors. (3) In adapters/httpapi/<module>api/, add named input/output types with doc,
// example and validation tags, a handler method (decode, one core call, encode: Reply converts
// the result or maps the error through ErrorFrom; path ids through ParseID, so a malformed id is
// a 404), and a Register line: Op gives the operation's id, method, path, summary, description
// with the rules and error codes, and error statuses; its Operations group gives the document,
// the credentials (s.APIKey, s.Player or s.Operator) and the tags. (4) "go tool task generate" refreshes
// openapi.yaml (and openapi-operator.yaml for an operator operation, registered on
// s.OperatorAPI). (5) Test the rule in core (on the fakes), the adapter against PostgreSQL
// (pgtest), and the behaviour in e2e/.
package httpapi
