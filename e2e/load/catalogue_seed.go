package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
)

// The catalogue the rewards store scenarios measure: storeCategories categories, storeBrands
// brands with made-up but pronounceable names, storeRewards rewards of every type with names,
// descriptions and prices a real catalogue has, coupon code pools, and orders for TRENDING.
//
// It goes straight into the tables with COPY, in a second or two, rather than through the
// operator API or the catalogue service: 10,000 rewards through either are 10,000 transactions
// (brand check, insert, search-text refresh), tens of seconds before the first measurement. The
// derived money columns are computed with core/catalogue's own methods (as the adapter's
// columnsOf does), and the search text by the adapter's own statement (CatalogueRefreshSearch,
// read from the sqlc code), once per brand; then VACUUM ANALYZE, so the planner knows the data.

// seedIssuer marks the brands this benchmark seeded (their organizationId), so a later run on
// the same -database-url finds and reuses its catalogue.
const seedIssuer = "load-benchmark"

type seedCategory struct {
	code, name string
	words      []string // what its brands sell: product names and descriptions
}

var seedCategories = []seedCategory{
	{"FASHION", "Fashion", []string{"shirt", "jacket", "dress", "denim"}},
	{"ELECTRONICS", "Electronics", []string{"headphones", "earbuds", "speaker", "charger"}},
	{"FOOD_DINING", "Food & Dining", []string{"pizza", "burger", "biryani", "thali"}},
	{"GROCERIES", "Groceries", []string{"vegetables", "fruits", "staples", "snacks"}},
	{"TRAVEL", "Travel", []string{"holiday", "luggage", "tour", "getaway"}},
	{"ENTERTAINMENT", "Entertainment", []string{"tickets", "concert", "show", "events"}},
	{"GAMING", "Gaming", []string{"console", "controller", "skins", "gems"}},
	{"BEAUTY", "Beauty", []string{"lipstick", "serum", "makeup", "skincare"}},
	{"HEALTH_WELLNESS", "Health & Wellness", []string{"vitamins", "yoga", "massage", "checkup"}},
	{"HOME_KITCHEN", "Home & Kitchen", []string{"cookware", "mixer", "kettle", "bedsheet"}},
	{"BOOKS", "Books", []string{"novel", "ebook", "comics", "bestseller"}},
	{"MUSIC", "Music", []string{"guitar", "album", "vinyl", "lessons"}},
	{"MOVIES", "Movies", []string{"cinema", "popcorn", "premiere", "screening"}},
	{"SPORTS_FITNESS", "Sports & Fitness", []string{"running", "dumbbells", "cricket", "gym"}},
	{"KIDS_TOYS", "Kids & Toys", []string{"puzzle", "blocks", "doll", "boardgame"}},
	{"JEWELLERY", "Jewellery", []string{"necklace", "earrings", "gold", "silver"}},
	{"FOOTWEAR", "Footwear", []string{"sneakers", "sandals", "boots", "loafers"}},
	{"MOBILE_RECHARGE", "Mobile & Recharge", []string{"prepaid", "data", "recharge", "postpaid"}},
	{"PHARMACY", "Pharmacy", []string{"medicines", "wellness", "diagnostics", "prescription"}},
	{"PETS", "Pets", []string{"petfood", "grooming", "leash", "aquarium"}},
	{"AUTOMOTIVE", "Automotive", []string{"servicing", "tyres", "helmet", "carwash"}},
	{"FURNITURE", "Furniture", []string{"sofa", "mattress", "wardrobe", "recliner"}},
	{"STATIONERY", "Stationery", []string{"notebook", "pens", "planner", "backpack"}},
	{"EDUCATION", "Education", []string{"courses", "tutoring", "coding", "language"}},
	{"SUBSCRIPTIONS", "Subscriptions", []string{"membership", "premium", "annual", "monthly"}},
	{"STREAMING", "Streaming", []string{"ott", "series", "podcasts", "originals"}},
	{"COFFEE_TEA", "Coffee & Tea", []string{"coffee", "latte", "espresso", "chai"}},
	{"QSR", "Quick Service Restaurants", []string{"fries", "wraps", "nuggets", "combo"}},
	{"FINE_DINING", "Fine Dining", []string{"buffet", "brunch", "dinner", "tasting"}},
	{"HOTELS", "Hotels", []string{"resort", "staycation", "suite", "villa"}},
	{"FLIGHTS", "Flights", []string{"airfare", "domestic", "international", "baggage"}},
	{"CABS_MOBILITY", "Cabs & Mobility", []string{"rides", "cab", "scooter", "metro"}},
	{"FUEL", "Fuel", []string{"petrol", "diesel", "fuel", "station"}},
	{"GIFTING", "Gifting", []string{"hamper", "flowers", "cake", "chocolates"}},
	{"WATCHES", "Watches", []string{"chronograph", "smartwatch", "analog", "strap"}},
	{"EYEWEAR", "Eyewear", []string{"sunglasses", "spectacles", "lenses", "frames"}},
	{"PERSONAL_CARE", "Personal Care", []string{"shampoo", "trimmer", "fragrance", "deodorant"}},
	{"BABY_CARE", "Baby Care", []string{"diapers", "stroller", "babywear", "wipes"}},
	{"HOME_DECOR", "Home Decor", []string{"lamps", "curtains", "cushions", "candles"}},
	{"GARDENING", "Gardening", []string{"plants", "planters", "seeds", "compost"}},
}

// seedWords are the common words of descriptions.
var seedWords = []string{"best", "deals", "exclusive", "offer", "online", "stores", "delivery", "free",
	"shipping", "premium", "quality", "everyday", "savings", "rewards", "members", "instant", "valid",
	"across", "india", "outlets", "app", "website", "festive", "season", "new", "collection", "favourite",
	"shop", "enjoy", "discount", "cashback", "weekend", "special", "limited", "edition", "trusted", "fresh",
	"fast", "easy", "returns", "original", "genuine", "value", "family", "friends", "gift", "celebrate",
	"daily", "essentials", "top", "brands", "selection", "nationwide", "partner", "locations"}

var (
	nameOnsets   = []string{"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "cr", "dr", "fl", "gr", "kr", "pr", "tr", "st", "sh", "ch"}
	nameVowels   = []string{"a", "e", "i", "o", "u", "a", "e", "o", "ai", "ou", "ee", "ia"}
	nameCodas    = []string{"", "", "", "n", "r", "x", "l", "s", "m", "k"}
	nameSuffixes = []string{"Mart", "Store", "Co", "Plus", "Express", "Hub", "World", "Bazaar", "Labs", "Studio"}
	adjectives   = []string{"Classic", "Wireless", "Premium", "Compact", "Deluxe", "Eco", "Smart", "Pro", "Mini", "Signature"}
	terms        = []string{
		"Valid for 12 months from the date of issue. Cannot be exchanged for cash. Not valid with other offers.",
		"One code per order. Valid on the brand's website and app only. The brand's standard terms apply.",
		"Valid at participating outlets across India. Present the code at billing. Taxes as applicable.",
	}
	howTos = []string{
		"Add items to your cart, enter the code at checkout and pay the balance, if any.",
		"Open the brand's app, go to Wallet, choose Add Gift Card and enter the code and pin.",
		"Show the code at the billing counter of any participating outlet before paying.",
	}
)

type seedBrand struct {
	code, name   string
	word         string // the first word of the name, lower case: unique among brands
	category     int    // its main category, an index in seedCategories
	categories   []string
	countries    []string
	active       bool
	description  string
	translations []byte
}

func pick[T any](rng *rand.Rand, list []T) T { return list[rng.IntN(len(list))] }

func capitalise(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// seedBrands are the storeBrands brands, the same on every run (their names make the search
// terms, and a later run on the same database reuses them).
func seedBrands() []seedBrand {
	rng := rand.New(rand.NewPCG(2024, 500))
	taken := map[string]bool{}
	for _, c := range seedCategories {
		for _, w := range c.words {
			taken[w] = true
		}
	}
	for _, w := range seedWords {
		taken[w] = true
	}
	brands := make([]seedBrand, 0, storeBrands)
	for len(brands) < storeBrands {
		var b strings.Builder
		syllables := 2 + rng.IntN(2)
		for i := range syllables {
			b.WriteString(pick(rng, nameOnsets))
			b.WriteString(pick(rng, nameVowels))
			if i == syllables-1 {
				b.WriteString(pick(rng, nameCodas))
			}
		}
		word := b.String()
		if len(word) < 5 || len(word) > 10 || taken[word] {
			continue
		}
		taken[word] = true
		i := len(brands)
		sb := seedBrand{word: word, category: i % len(seedCategories), active: rng.IntN(100) >= 2}
		cat := seedCategories[sb.category]
		sb.name = capitalise(word)
		switch x := rng.IntN(100); {
		case x < 20:
			sb.name += " " + strings.Fields(cat.name)[0]
		case x < 35:
			sb.name += " " + pick(rng, nameSuffixes)
		}
		sb.code = strings.ToUpper(strings.ReplaceAll(sb.name, " ", "_"))
		sb.categories = []string{cat.code}
		for range rng.IntN(3) {
			if c := pick(rng, seedCategories).code; !slices.Contains(sb.categories, c) {
				sb.categories = append(sb.categories, c)
			}
		}
		sb.countries = []string{}
		if rng.IntN(100) < 15 {
			sb.countries = []string{"IN"}
		}
		sb.description = fmt.Sprintf("%s brings %s lovers %s, %s and %s. %s.", sb.name, strings.ToLower(cat.name),
			pick(rng, cat.words), pick(rng, cat.words), pick(rng, seedCategories).words[0], sentence(rng, 8+rng.IntN(8)))
		sb.translations = []byte("{}")
		if rng.IntN(10) == 0 {
			sb.translations = mustJSON(catalogue.Translations{"hi": {Name: sb.name + " इंडिया"}})
		}
		brands = append(brands, sb)
	}
	return brands
}

func sentence(rng *rand.Rand, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = pick(rng, seedWords)
	}
	return capitalise(strings.Join(words, " "))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type seedReward struct {
	id        uuid.UUID
	brand     int
	r         catalogue.Reward
	shared    []byte // a coupon's sealed shared code (random bytes: never opened here)
	codes     int    // a pool coupon's codes
	createdAt time.Time
}

// seedRewards are storeRewards rewards, storeRewards/storeBrands per brand.
func seedRewards(brands []seedBrand, now time.Time) []seedReward {
	rng := rand.New(rand.NewPCG(2024, 10_000))
	units := func(list ...int64) money.Amount { return money.Amount(pick(rng, list) * 100) }
	out := make([]seedReward, storeRewards)
	for i := range out {
		bi := i % len(brands)
		b := brands[bi]
		cat := seedCategories[b.category]
		word := pick(rng, cat.words)
		s := seedReward{id: uuid.New(), brand: bi, createdAt: now.Add(-time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))}
		r := catalogue.Reward{BrandCode: b.code, IsActive: rng.IntN(100) >= 3, ValueType: catalogue.Fixed,
			XScore: float64(rng.IntN(10_000)) / 100, Countries: []string{}, Assets: map[string]string{},
			CoverImage: fmt.Sprintf("https://cdn.example.com/rewards/%d.png", i)}
		brandName := b.name
		switch x := rng.IntN(100); {
		case x < 50:
			r.Type = catalogue.GiftCard
			r.Name = fmt.Sprintf(pick(rng, []string{"%s Gift Card", "%s E-Gift Card", "%s Shopping Voucher", "%s Gift Card for " + word}), brandName)
		case x < 60:
			r.Type = catalogue.DigitalCredit
			r.Name = fmt.Sprintf(pick(rng, []string{"%s Wallet Credit", "%s Store Credit", "%s Premium Credit"}), brandName)
		case x < 85:
			r.Type = catalogue.Coupon
			off := pick(rng, []int{10, 15, 20, 25, 30, 40, 50})
			r.Name = pick(rng, []string{fmt.Sprintf("Flat %d%% off at %s", off, brandName), fmt.Sprintf("%s %s coupon", brandName, word),
				fmt.Sprintf("Buy 1 Get 1 %s at %s", word, brandName), fmt.Sprintf("%s %d%% off %s", brandName, off, word)})
		default:
			r.Type = catalogue.Physical
			r.Name = fmt.Sprintf("%s %s %s", brandName, pick(rng, adjectives), capitalise(word))
		}
		switch r.Type {
		case catalogue.GiftCard, catalogue.DigitalCredit:
			r.DiscountPct = money.Pct(pick(rng, []int64{0, 0, 100, 150, 200, 250, 300, 400, 500, 750, 1000, 1200, 1500}))
			if rng.IntN(100) < 70 {
				all := []int64{100, 200, 250, 500, 1000, 1500, 2000, 2500, 5000, 10000}
				for _, d := range all {
					if rng.IntN(100) < 35 || (d == 500 && len(r.Denominations) == 0) {
						r.Denominations = append(r.Denominations, money.Amount(d*100))
					}
				}
			} else {
				r.ValueType, r.MinValue, r.MaxValue = catalogue.Range, units(50, 100, 250, 500), units(5000, 10000, 25000)
			}
		case catalogue.Coupon:
			r.MRP = units(99, 199, 299, 499, 999, 1499, 1999, 2999, 4999)
			r.SellingPrice = money.Amount(int64(r.MRP) * pick(rng, []int64{0, 50, 70, 80, 90, 100}) / 100)
			if rng.IntN(2) == 0 {
				s.shared = make([]byte, 44)
				for j := range s.shared {
					s.shared[j] = byte(rng.IntN(256))
				}
			} else {
				s.codes = rng.IntN(21)
			}
		default:
			r.MRP = units(499, 999, 1499, 2499, 4999, 9999, 14999, 29999)
			r.SellingPrice = money.Amount(int64(r.MRP) * int64(60+rng.IntN(36)) / 100)
		}
		r.Description = fmt.Sprintf("%s from %s: %s %s. %s.", capitalise(word), brandName, strings.ToLower(cat.name),
			pick(rng, cat.words), sentence(rng, 10+rng.IntN(12)))
		if rng.IntN(2) == 0 {
			r.CampaignTitle = fmt.Sprintf("Save %d%% on %s", 5+rng.IntN(40), word)
			r.CampaignSubTitle = pick(rng, []string{"Limited period offer", "This week only", "For members"})
			r.CampaignDetails = sentence(rng, 12)
			r.Assets = map[string]string{"banner": fmt.Sprintf("https://cdn.example.com/banners/%d.png", i)}
		}
		r.TermsAndConditions, r.HowToRedeem = pick(rng, terms), pick(rng, howTos)
		switch x := rng.IntN(100); {
		case x < 10:
			r.Countries = []string{"IN"}
		case x < 15:
			r.Countries = []string{"IN", "AE", "US"}
		}
		switch x := rng.IntN(100); {
		case x < 4:
			end := now.Add(-time.Duration(1+rng.IntN(60)) * 24 * time.Hour)
			r.EndDate = &end
		case x < 8:
			end := now.Add(time.Duration(30+rng.IntN(335)) * 24 * time.Hour)
			r.EndDate = &end
		}
		if rng.IntN(5) == 0 {
			r.PurchaseCooldown = 24 * time.Hour
		}
		r.FlagAllowStudioEditPrice = rng.IntN(10) == 0
		r.Translations = catalogue.Translations{}
		if rng.IntN(10) == 0 {
			r.Translations = catalogue.Translations{"hi": {Name: r.Name + " (हिंदी)"}}
		}
		s.r = r
		out[i] = s
	}
	return out
}

// seedInfo says how the catalogue came to be, for the report.
type seedInfo struct {
	reused                       bool
	took                         time.Duration
	categories, brands, rewards  int64
	codes, orderDays, gameHidden int64
}

// seedCatalogue fills an empty catalogue (or finds the one an earlier run on the same database
// seeded) and sets up the game's own changes to it: some hidden rewards and coin prices.
func seedCatalogue(ctx context.Context, conn *pgx.Conn, refresh sqlQuery, gameID, coinID string) (seedInfo, error) {
	start := time.Now()
	var info seedInfo
	var have, ours int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM catalogue_rewards), (SELECT count(*) FROM catalogue_brands WHERE issuer = $1)`,
		seedIssuer).Scan(&have, &ours); err != nil {
		return info, fmt.Errorf("look at the catalogue: %w", err)
	}
	switch {
	case have == 0:
		if err := fillCatalogue(ctx, conn, refresh); err != nil {
			return info, err
		}
	case have == storeRewards && ours == storeBrands:
		info.reused = true
	default:
		return info, fmt.Errorf("the catalogue already holds %d rewards that this benchmark did not seed: the rewards store "+
			"scenarios need an empty catalogue (a private PostgreSQL has one)", have)
	}
	// What the benchmark game changes: 1% of the rewards hidden, and its own coin prices on 50
	// of those that allow it.
	if _, err := conn.Exec(ctx, `
		INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden, coin_prices)
		SELECT $1, id, true, '{}' FROM catalogue_rewards ORDER BY md5(id::text) LIMIT 100
		ON CONFLICT DO NOTHING`, gameID); err != nil {
		return info, fmt.Errorf("hide rewards: %w", err)
	}
	if _, err := conn.Exec(ctx, `
		INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden, coin_prices)
		SELECT $1, id, false, jsonb_build_object($2::text, 50 + (x_score * 10)::int) FROM catalogue_rewards
		WHERE flag_allow_studio_edit_price ORDER BY md5(id::text) DESC LIMIT 50
		ON CONFLICT DO NOTHING`, gameID, coinID); err != nil {
		return info, fmt.Errorf("set coin prices: %w", err)
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE catalogue_categories, catalogue_brands, catalogue_rewards, catalogue_codes,
		catalogue_reward_orders, catalogue_game_rewards`); err != nil {
		return info, fmt.Errorf("vacuum analyze: %w", err)
	}
	err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM catalogue_categories), (SELECT count(*) FROM catalogue_brands),
		(SELECT count(*) FROM catalogue_rewards), (SELECT count(*) FROM catalogue_codes), (SELECT count(*) FROM catalogue_reward_orders),
		(SELECT count(*) FROM catalogue_game_rewards WHERE game_id = $1 AND hidden)`, gameID).Scan(
		&info.categories, &info.brands, &info.rewards, &info.codes, &info.orderDays, &info.gameHidden)
	info.took = time.Since(start)
	return info, err
}

func fillCatalogue(ctx context.Context, conn *pgx.Conn, refresh sqlQuery) error {
	now := time.Now()
	brands := seedBrands()
	rewards := seedRewards(brands, now)
	rng := rand.New(rand.NewPCG(2024, 1))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	copyRows := func(table string, cols []string, rows [][]any) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
		return nil
	}

	var rows [][]any
	for i, c := range seedCategories {
		rows = append(rows, []any{c.code, c.name, fmt.Sprintf("https://cdn.example.com/categories/%s.png", strings.ToLower(c.code)), i * 10, []byte("{}")})
	}
	if err := copyRows("catalogue_categories", []string{"code", "name", "image_url", "display_order", "translations"}, rows); err != nil {
		return err
	}

	rows = rows[:0]
	for _, b := range brands {
		rows = append(rows, []any{b.code, b.name, b.description, "https://cdn.example.com/brands/" + strings.ToLower(b.code) + ".png",
			"https://www." + b.word + ".example.com", seedIssuer, b.categories, b.countries, b.active, b.translations})
	}
	if err := copyRows("catalogue_brands", []string{"code", "name", "description", "logo_url", "website_url", "issuer", "categories",
		"countries", "is_active", "translations"}, rows); err != nil {
		return err
	}

	rows = rows[:0]
	var codes, orders [][]any
	for _, s := range rewards {
		r := s.r
		// As the adapter's columnsOf derives them.
		denominations := []int64{}
		for _, f := range r.Faces() {
			denominations = append(denominations, int64(f))
		}
		rows = append(rows, []any{s.id, string(r.Type), r.BrandCode, r.Name, r.Description, r.CampaignTitle, r.CampaignSubTitle,
			r.CampaignDetails, r.TermsAndConditions, r.HowToRedeem, r.CoverImage, mustJSON(r.Assets), r.Countries, r.EndDate,
			r.IsActive, string(r.ValueType), denominations, int64(r.MinFace()), int64(r.MaxFace()), int32(r.DiscountOnMRP()),
			int64(r.SellingPriceOf(r.MinFace())), int64(r.SellingPriceOf(r.MaxFace())), int32(r.PurchaseCooldown / time.Second),
			r.XScore, r.FlagAllowStudioEditPrice, mustJSON(r.Translations), s.shared, s.createdAt, s.createdAt})
		for j := range s.codes {
			code := make([]byte, 60)
			for k := range code {
				code[k] = byte(rng.IntN(256))
			}
			var orderID any
			var takenAt any
			if rng.IntN(4) == 0 {
				orderID, takenAt = uuid.New(), now.Add(-time.Duration(rng.IntN(30*24))*time.Hour)
			}
			codes = append(codes, []any{s.id, code[:32], code[32:], orderID, takenAt, s.createdAt.Add(time.Duration(j) * time.Minute)})
		}
		if rng.IntN(100) < 30 {
			days := map[int]bool{}
			for range 1 + rng.IntN(10) {
				days[rng.IntN(30)] = true
			}
			for d := range days {
				orders = append(orders, []any{s.id, now.AddDate(0, 0, -d), int32(1 + rng.IntN(50))})
			}
		}
	}
	if err := copyRows("catalogue_rewards", []string{"id", "type", "brand_code", "name", "description", "campaign_title",
		"campaign_sub_title", "campaign_details", "terms_and_conditions", "how_to_redeem", "cover_image", "assets", "countries",
		"end_date", "is_active", "value_type", "denominations", "min_face", "max_face", "discount_bps", "min_selling",
		"max_selling", "purchase_cooldown", "x_score", "flag_allow_studio_edit_price", "translations", "shared_code",
		"created_at", "updated_at"}, rows); err != nil {
		return err
	}
	if err := copyRows("catalogue_codes", []string{"reward_id", "code_hash", "code", "order_id", "taken_at", "created_at"}, codes); err != nil {
		return err
	}
	if err := copyRows("catalogue_reward_orders", []string{"reward_id", "day", "orders"}, orders); err != nil {
		return err
	}

	// The search text, by the adapter's statement, category by category: every brand has one,
	// and 40 statements scan the table far fewer times than 500 brand by brand would (a reward
	// whose brand has several categories is refreshed more than once, to the same text).
	batch := &pgx.Batch{}
	for _, c := range seedCategories {
		vals, err := sqlStep{q: refresh, args: sqlArgs{"RewardID": nil, "BrandCode": nil, "Category": str(c.code)}}.values()
		if err != nil {
			return err
		}
		batch.Queue(refresh.sql, vals...)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("refresh the search text: %w", err)
	}
	var unsearchable int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM catalogue_rewards WHERE search_name = ''`).Scan(&unsearchable); err != nil {
		return err
	}
	if unsearchable > 0 {
		return fmt.Errorf("%d rewards have no search text after the refresh", unsearchable)
	}
	return tx.Commit(ctx)
}
