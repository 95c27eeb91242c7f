-- What studios need to operate their webhooks: a delivery sent again (resend, recover), a
-- signing secret replaced with a grace period for the old one, and a configuration switched off
-- when its receiver stays gone (auto-disable).

-- +goose Up
ALTER TABLE webhook_configs
    -- The secret a rotation replaced, sealed like secret_sealed, and until when deliveries are
    -- signed with it too.
    ADD COLUMN previous_secret_sealed     bytea,
    ADD COLUMN previous_secret_expires_at timestamptz,
    -- Why the service switched the configuration off; cleared when a studio switches it on.
    ADD COLUMN disabled_reason            text,
    -- Since when the configuration is active: auto-disable counts failures from then only.
    ADD COLUMN active_since               timestamptz NOT NULL DEFAULT now();

ALTER TABLE webhook_deliveries
    -- The delivery this one sends again (resend or recover); null for the coin event's own.
    -- Not a foreign key: the retention purge deletes finished deliveries in any order.
    ADD COLUMN resent_from  uuid,
    -- On a FAILED delivery that a recover sent again: the new delivery, and when. A recover takes
    -- only deliveries without one, so two recovers never send one delivery twice.
    ADD COLUMN recovered_by uuid,
    ADD COLUMN recovered_at timestamptz;

-- An event still goes once to each configuration from the fan-out; sending it again adds rows.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_config_id_key;
CREATE UNIQUE INDEX webhook_deliveries_event_config_idx ON webhook_deliveries (event_id, config_id)
    WHERE resent_from IS NULL;

-- A configuration's deliveries by outcome and time: recover's FAILED ones, the auto-disable
-- rule's counts, and the cascade of a configuration's deletion.
CREATE INDEX webhook_deliveries_config_status_idx ON webhook_deliveries (config_id, status, attempted_at);

-- +goose Down
DROP INDEX webhook_deliveries_config_status_idx;
DROP INDEX webhook_deliveries_event_config_idx;
DELETE FROM webhook_deliveries WHERE resent_from IS NOT NULL;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_config_id_key UNIQUE (event_id, config_id);
ALTER TABLE webhook_deliveries DROP COLUMN recovered_at, DROP COLUMN recovered_by, DROP COLUMN resent_from;
ALTER TABLE webhook_configs DROP COLUMN active_since, DROP COLUMN disabled_reason,
    DROP COLUMN previous_secret_expires_at, DROP COLUMN previous_secret_sealed;
