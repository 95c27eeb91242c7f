-- +goose Up
-- The gift cards partners can buy: active GIFT_CARD rewards the voucher provider fulfils, one per
-- brand (the oldest), with their brand. The brand list (PartnerBrands) and an order's lookup of
-- one brand (PartnerBrand) both read it, so they never differ on which card a brand has; a
-- condition on brand_code, the DISTINCT ON column, is applied before the DISTINCT ON, so one
-- brand is found by its key.
CREATE VIEW partner_gift_cards AS
SELECT DISTINCT ON (b.code) b.code AS brand_code, b.name AS brand_name, b.logo_url, b.categories,
    b.description AS brand_description, r.id AS reward_id, r.value_type, r.denominations, r.min_face, r.max_face,
    r.description, r.terms_and_conditions, r.how_to_redeem, r.provider_product_id::text AS provider_product
FROM catalogue_rewards r JOIN catalogue_brands b ON b.code = r.brand_code
WHERE r.type = 'GIFT_CARD' AND r.is_active AND b.is_active AND r.provider_product_id IS NOT NULL
    AND (r.end_date IS NULL OR r.end_date > now())
ORDER BY b.code, r.created_at, r.id;

-- +goose Down
DROP VIEW partner_gift_cards;
