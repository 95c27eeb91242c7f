-- Which webhook configurations an event goes to, in one place: webhook_routes, the webhooks
-- module's routing rule, which every statement that records an event calls in the event's
-- transaction (the coin movement, CoinsApplyMovement; the order and partner wallet triggers),
-- so that its deliveries commit or roll back with it. core/webhooks states the same rule in Go
-- (Config.Receives) for the fakes, and webhookstest checks the two route alike.
--
-- A configuration takes an event when it is switched on, belongs to the studio of the event's
-- game and to its environment, subscribes to its type, and does not exclude its reason (an
-- event without one, null, is never excluded). FOR KEY SHARE: a configuration deleted
-- concurrently is skipped rather than failing the deliveries' foreign key, and a delete waits
-- for the transactions that route to it.
--
-- PL/pgSQL rather than SQL: a function that locks rows is volatile, so PostgreSQL would neither
-- inline a SQL one nor keep its plan from one statement to the next; PL/pgSQL keeps the plan of
-- its query for the connection's life.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION webhook_routes(game uuid, env text, event text, reason text)
RETURNS TABLE (config_id uuid, studio_id uuid, environment text, partner_wallet_low_threshold bigint)
LANGUAGE plpgsql ROWS 1 AS $$
BEGIN
    RETURN QUERY
    SELECT c.id, c.studio_id, c.environment, c.partner_wallet_low_threshold
    FROM webhook_configs c
    JOIN games g ON g.studio_id = c.studio_id
    WHERE g.id = game AND c.environment = env AND c.is_active
      AND event = ANY (c.subscribed_events)
      AND (reason IS NULL OR NOT reason = ANY (c.excluded_reasons))
    FOR KEY SHARE OF c;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION orders_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    types text[] := '{}';
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        IF NEW.status = 'SUCCESS' THEN
            types := types || 'ORDER_SUCCEEDED'::text;
        ELSIF NEW.status = 'FAILED' THEN
            types := types || 'ORDER_FAILED'::text;
            IF NEW.refund_tx_id IS NOT NULL OR NEW.settlement = 'WALLET' THEN
                types := types || 'ORDER_REFUNDED'::text;
            END IF;
        ELSIF NEW.status = 'REFUNDED' THEN
            types := types || 'ORDER_REFUNDED'::text;
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.payment_status = 'REFUNDED' AND OLD.payment_status IS DISTINCT FROM 'REFUNDED'
       AND NOT 'ORDER_REFUNDED' = ANY (types) THEN
        types := types || 'ORDER_REFUNDED'::text;
    END IF;
    IF cardinality(types) = 0 THEN
        RETURN NULL;
    END IF;
    -- The configurations that take each event, by the webhooks module's rule.
    WITH cfg AS (
        SELECT t AS event_type, r.config_id, r.studio_id, r.environment
        FROM unnest(types) t, webhook_routes(NEW.game_id, NEW.environment, t, NULL) r
    ), wanted AS (
        SELECT gen_random_uuid() AS id, t AS event_type
        FROM unnest(types) t
        WHERE EXISTS (SELECT 1 FROM cfg WHERE cfg.event_type = t)
    ), ev AS (
        INSERT INTO webhook_events (id, game_id, environment, event_type, order_id, body, created_at)
        SELECT w.id, NEW.game_id, NEW.environment, w.event_type, NEW.id,
               jsonb_build_object(
                   'event_id', w.id,
                   'event_type', w.event_type,
                   'timestamp', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'app_id', NEW.game_id,
                   'environment', CASE WHEN NEW.environment = 'live' THEN 'PRODUCTION' ELSE 'DEVELOPMENT' END,
                   'order_id', NEW.id,
                   'channel', NEW.channel,
                   'status', NEW.status,
                   'payment_status', NEW.payment_status,
                   'user_uuid', NEW.user_ref,
                   'reward_id', NEW.reward_id,
                   'reward_type', NEW.reward_type,
                   'quantity', NEW.quantity,
                   'denomination', (NEW.denomination / 100.0)::float8,
                   'face_value', (NEW.face_value / 100.0)::float8,
                   'coin_id', NEW.coin_id,
                   'coins_spent', CASE WHEN NEW.channel = 'STORE' THEN NEW.coins_spent END,
                   'client_order_id', NEW.client_order_id,
                   'settlement', NEW.settlement,
                   'amount', (NEW.amount / 100.0)::float8,
                   'currency', NEW.currency,
                   'brand_code', NEW.brand_code,
                   'failure_reason', nullif(NEW.failure_reason, ''),
                   'created_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')),
               NEW.updated_at
        FROM wanted w
        RETURNING id, event_type, created_at
    )
    INSERT INTO webhook_deliveries (webhook_event_id, config_id, studio_id, environment, event_type, transaction_id, event_created_at)
    SELECT ev.id, cfg.config_id, cfg.studio_id, cfg.environment, ev.event_type, NEW.id, ev.created_at
    FROM ev JOIN cfg ON cfg.event_type = ev.event_type;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION partner_wallet_low_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The configurations that take the event, by the webhooks module's rule, and whose threshold
    -- the debit crossed.
    WITH cfg AS (
        SELECT r.config_id AS id, r.studio_id, r.environment, r.partner_wallet_low_threshold AS threshold
        FROM webhook_routes(NEW.game_id, NEW.environment, 'PARTNER_WALLET_LOW', NULL) r
        WHERE OLD.balance >= r.partner_wallet_low_threshold AND NEW.balance < r.partner_wallet_low_threshold
    ), wanted AS (
        -- Materialised (named twice): the event's id is the same in its row and its delivery.
        SELECT gen_random_uuid() AS event_id, cfg.id AS config_id, cfg.studio_id, cfg.environment, cfg.threshold FROM cfg
    ), ev AS (
        INSERT INTO webhook_events (id, game_id, environment, event_type, body, created_at)
        SELECT w.event_id, NEW.game_id, NEW.environment, 'PARTNER_WALLET_LOW',
               jsonb_build_object(
                   'event_id', w.event_id,
                   'event_type', 'PARTNER_WALLET_LOW',
                   'timestamp', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'app_id', NEW.game_id,
                   'environment', CASE WHEN NEW.environment = 'live' THEN 'PRODUCTION' ELSE 'DEVELOPMENT' END,
                   'balance', (NEW.balance / 100.0)::float8,
                   'previous_balance', (OLD.balance / 100.0)::float8,
                   'threshold', (w.threshold / 100.0)::float8),
               NEW.updated_at
        FROM wanted w
        RETURNING id, created_at
    )
    -- transaction_id, which names a coin event's transaction or an order event's order, names
    -- the event itself here.
    INSERT INTO webhook_deliveries (webhook_event_id, config_id, studio_id, environment, event_type, transaction_id, event_created_at)
    SELECT w.event_id, w.config_id, w.studio_id, w.environment, 'PARTNER_WALLET_LOW', w.event_id, ev.created_at
    FROM ev JOIN wanted w ON w.event_id = ev.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION orders_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    types text[] := '{}';
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        IF NEW.status = 'SUCCESS' THEN
            types := types || 'ORDER_SUCCEEDED'::text;
        ELSIF NEW.status = 'FAILED' THEN
            types := types || 'ORDER_FAILED'::text;
            IF NEW.refund_tx_id IS NOT NULL OR NEW.settlement = 'WALLET' THEN
                types := types || 'ORDER_REFUNDED'::text;
            END IF;
        ELSIF NEW.status = 'REFUNDED' THEN
            types := types || 'ORDER_REFUNDED'::text;
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.payment_status = 'REFUNDED' AND OLD.payment_status IS DISTINCT FROM 'REFUNDED'
       AND NOT 'ORDER_REFUNDED' = ANY (types) THEN
        types := types || 'ORDER_REFUNDED'::text;
    END IF;
    IF cardinality(types) = 0 THEN
        RETURN NULL;
    END IF;
    -- As a coin movement's fan-out: FOR KEY SHARE skips a configuration deleted meanwhile.
    WITH cfg AS (
        SELECT c.id, c.studio_id, c.environment, c.subscribed_events
        FROM webhook_configs c
        JOIN games g ON g.studio_id = c.studio_id
        WHERE g.id = NEW.game_id AND c.environment = NEW.environment AND c.is_active
          AND c.subscribed_events && types
        FOR KEY SHARE OF c
    ), wanted AS (
        SELECT gen_random_uuid() AS id, t AS event_type
        FROM unnest(types) t
        WHERE EXISTS (SELECT 1 FROM cfg WHERE t = ANY (cfg.subscribed_events))
    ), ev AS (
        INSERT INTO webhook_events (id, game_id, environment, event_type, order_id, body, created_at)
        SELECT w.id, NEW.game_id, NEW.environment, w.event_type, NEW.id,
               jsonb_build_object(
                   'event_id', w.id,
                   'event_type', w.event_type,
                   'timestamp', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'app_id', NEW.game_id,
                   'environment', CASE WHEN NEW.environment = 'live' THEN 'PRODUCTION' ELSE 'DEVELOPMENT' END,
                   'order_id', NEW.id,
                   'channel', NEW.channel,
                   'status', NEW.status,
                   'payment_status', NEW.payment_status,
                   'user_uuid', NEW.user_ref,
                   'reward_id', NEW.reward_id,
                   'reward_type', NEW.reward_type,
                   'quantity', NEW.quantity,
                   'denomination', (NEW.denomination / 100.0)::float8,
                   'face_value', (NEW.face_value / 100.0)::float8,
                   'coin_id', NEW.coin_id,
                   'coins_spent', CASE WHEN NEW.channel = 'STORE' THEN NEW.coins_spent END,
                   'client_order_id', NEW.client_order_id,
                   'settlement', NEW.settlement,
                   'amount', (NEW.amount / 100.0)::float8,
                   'currency', NEW.currency,
                   'brand_code', NEW.brand_code,
                   'failure_reason', nullif(NEW.failure_reason, ''),
                   'created_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')),
               NEW.updated_at
        FROM wanted w
        RETURNING id, event_type, created_at
    )
    INSERT INTO webhook_deliveries (webhook_event_id, config_id, studio_id, environment, event_type, transaction_id, event_created_at)
    SELECT ev.id, cfg.id, cfg.studio_id, cfg.environment, ev.event_type, NEW.id, ev.created_at
    FROM ev JOIN cfg ON ev.event_type = ANY (cfg.subscribed_events);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION partner_wallet_low_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH cfg AS (
        SELECT c.id, c.studio_id, c.environment, c.partner_wallet_low_threshold AS threshold
        FROM webhook_configs c
        JOIN games g ON g.studio_id = c.studio_id
        WHERE g.id = NEW.game_id AND c.environment = NEW.environment AND c.is_active
          AND 'PARTNER_WALLET_LOW' = ANY (c.subscribed_events)
          AND OLD.balance >= c.partner_wallet_low_threshold AND NEW.balance < c.partner_wallet_low_threshold
        FOR KEY SHARE OF c
    ), wanted AS (
        -- Materialised (named twice): the event's id is the same in its row and its delivery.
        SELECT gen_random_uuid() AS event_id, cfg.id AS config_id, cfg.studio_id, cfg.environment, cfg.threshold FROM cfg
    ), ev AS (
        INSERT INTO webhook_events (id, game_id, environment, event_type, body, created_at)
        SELECT w.event_id, NEW.game_id, NEW.environment, 'PARTNER_WALLET_LOW',
               jsonb_build_object(
                   'event_id', w.event_id,
                   'event_type', 'PARTNER_WALLET_LOW',
                   'timestamp', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'app_id', NEW.game_id,
                   'environment', CASE WHEN NEW.environment = 'live' THEN 'PRODUCTION' ELSE 'DEVELOPMENT' END,
                   'balance', (NEW.balance / 100.0)::float8,
                   'previous_balance', (OLD.balance / 100.0)::float8,
                   'threshold', (w.threshold / 100.0)::float8),
               NEW.updated_at
        FROM wanted w
        RETURNING id, created_at
    )
    -- transaction_id, which names a coin event's transaction or an order event's order, names
    -- the event itself here.
    INSERT INTO webhook_deliveries (webhook_event_id, config_id, studio_id, environment, event_type, transaction_id, event_created_at)
    SELECT w.event_id, w.config_id, w.studio_id, w.environment, 'PARTNER_WALLET_LOW', w.event_id, ev.created_at
    FROM ev JOIN wanted w ON w.event_id = ev.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

DROP FUNCTION webhook_routes(uuid, text, text, text);
