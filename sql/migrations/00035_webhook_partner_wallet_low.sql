-- PARTNER_WALLET_LOW: a partner wallet fell under the threshold a studio set on its webhook
-- configuration (partner_wallet_low_threshold, in hundredths of the currency).
--
-- The threshold is the configuration's: the studio sets it where it subscribes to the event,
-- with its own API key and per environment, and each receiver may choose its own.
--
-- A crossing is a debit that takes the balance from at or above the threshold to under it:
-- the event is sent once per crossing, not on every debit under the threshold, and again only
-- after a credit or refund took the wallet back to the threshold or above. It needs no state of
-- its own: a trigger on the wallet's row compares the balance before and after each debit, in
-- the debit's statement and so in its transaction, and writes the event (webhook_events) and its
-- deliveries for each active configuration of the game's studio and environment that subscribes
-- to it and whose threshold was crossed. Credits and the wallet's lock (an update to the same
-- balance) do not run it.

-- +goose Up
ALTER TABLE webhook_configs ADD COLUMN partner_wallet_low_threshold bigint
    CHECK (partner_wallet_low_threshold > 0);

-- +goose StatementBegin
CREATE FUNCTION partner_wallet_low_events() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER partner_wallets_low_events AFTER UPDATE OF balance ON partner_wallets
    FOR EACH ROW WHEN (NEW.balance < OLD.balance)
    EXECUTE FUNCTION partner_wallet_low_events();

-- +goose Down
DROP TRIGGER partner_wallets_low_events ON partner_wallets;
DROP FUNCTION partner_wallet_low_events();
ALTER TABLE webhook_configs DROP COLUMN partner_wallet_low_threshold;
