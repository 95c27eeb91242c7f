-- Order events for studios' webhooks: ORDER_SUCCEEDED, ORDER_FAILED and ORDER_REFUNDED, for
-- store and partner orders, each sent to the configurations that subscribe to it.
--
-- Events other than coin events live in webhook_events with their body, built once when the
-- event happens: a resend or recover sends the same body, and the outbox's claim reads it
-- with one more join. A delivery names its event in exactly one of event_id (a coin event) and
-- webhook_event_id; coin movements keep their fan-out as it was, in their own statement.
--
-- The events of an order are written by a trigger on orders, in the statement that changes the
-- order's status (or its payment's), so that they commit or roll back with it whatever path
-- moved the order (the purchase, the fulfilment job, the partner's payment and refund jobs),
-- and a status change is never without its events. Which change makes which event:
--   status SUCCESS                          ORDER_SUCCEEDED
--   status FAILED                           ORDER_FAILED, and ORDER_REFUNDED when what the order
--                                           took goes back in the same transaction: a store
--                                           order's coins (refund_tx_id), a WALLET order's amount
--   status REFUNDED (a CASH order unpaid)    ORDER_REFUNDED
--   payment_status REFUNDED (CASH, paid and given back by the provider)  ORDER_REFUNDED
-- An event no active configuration subscribes to is not written at all.

-- +goose Up
CREATE TABLE webhook_events (
    id          uuid        PRIMARY KEY,
    game_id     uuid        NOT NULL REFERENCES games (id),
    environment text        NOT NULL,
    event_type  text        NOT NULL,
    -- The order the event is about; null for an event about no order.
    order_id    uuid        REFERENCES orders (id),
    -- The request body sent, event_id and event_type included.
    body        jsonb       NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX webhook_events_order_idx ON webhook_events (order_id) WHERE order_id IS NOT NULL;

ALTER TABLE webhook_deliveries
    ALTER COLUMN event_id DROP NOT NULL,
    ADD COLUMN webhook_event_id uuid REFERENCES webhook_events (id),
    -- Every existing row names a coin event (event_id was NOT NULL): NOT VALID spares the scan.
    ADD CONSTRAINT webhook_deliveries_one_event CHECK (num_nonnulls(event_id, webhook_event_id) = 1) NOT VALID;

-- +goose StatementBegin
CREATE FUNCTION orders_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER orders_webhook_events_insert AFTER INSERT ON orders
    FOR EACH ROW WHEN (NEW.status IN ('SUCCESS', 'FAILED', 'REFUNDED'))
    EXECUTE FUNCTION orders_webhook_events();
CREATE TRIGGER orders_webhook_events_update AFTER UPDATE OF status, payment_status ON orders
    FOR EACH ROW WHEN ((NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('SUCCESS', 'FAILED', 'REFUNDED'))
                       OR (NEW.payment_status = 'REFUNDED' AND OLD.payment_status IS DISTINCT FROM 'REFUNDED'))
    EXECUTE FUNCTION orders_webhook_events();

-- +goose Down
DROP TRIGGER orders_webhook_events_update ON orders;
DROP TRIGGER orders_webhook_events_insert ON orders;
DROP FUNCTION orders_webhook_events();
DELETE FROM webhook_deliveries WHERE webhook_event_id IS NOT NULL;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_one_event, DROP COLUMN webhook_event_id,
    ALTER COLUMN event_id SET NOT NULL;
DROP TABLE webhook_events;
