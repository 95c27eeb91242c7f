package catalogueapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// The cache of list items answers json.Marshal of the shape asked for, whatever changed in it,
// and serves an entry (the same bytes, not encoded again) only for an equal shape.
func TestListItemCacheIsTheShapesJSON(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	a := RewardShapeA{ID: uuid.New(), Name: "Fish & <Chips>", Description: "d", Type: "COUPON", BrandID: "B", BrandName: "Brand",
		OrganizationID: "B", EndDate: &end, Price: 4750, MaxPrice: 9500, MinPrice: 4750, AvailableQuantity: 7,
		Metadata: RewardMetadata{BrandName: "Brand", CampaignTitle: "t", BrandCategory: []string{"food"},
			CampaignAssets: map[string]string{"hero": "https://cdn.example.com/h.png"}}}
	b := RewardShapeB{ID: a.ID, BrandID: "B", BrandName: "Brand", OrganizationID: "B",
		Metadata:  RewardMetadataB{RewardMetadata: a.Metadata, CampaignExpiryDate: &end},
		Inventory: InventoryBody{AvailableQuantity: 7, Type: "CODE_POOL"}, Price: PriceBody{Amount: 4750, CoinID: uuid.New()}}
	c := newItemCache(1 << 20)
	key := itemKey{reward: a.ID, coin: b.Price.CoinID, lang: "en"}
	check := func(key itemKey, shape any) []byte {
		want, err := json.Marshal(shape)
		require.NoError(t, err)
		got := c.encoded(key, shape)
		require.Equal(t, string(want), string(got))
		return got
	}
	first := check(key, a)
	require.Same(t, &first[0], &c.encoded(key, a)[0], "an equal shape is served from its entry")
	later := end.Add(time.Hour)
	for name, change := range map[string]func(s *RewardShapeA){
		"name":     func(s *RewardShapeA) { s.Name = "Fish" },
		"price":    func(s *RewardShapeA) { s.Price++ },
		"stock":    func(s *RewardShapeA) { s.AvailableQuantity-- },
		"end date": func(s *RewardShapeA) { s.EndDate = &later },
		"no end":   func(s *RewardShapeA) { s.EndDate = nil },
		"assets": func(s *RewardShapeA) {
			s.Metadata.CampaignAssets = map[string]string{"hero": "https://cdn.example.com/x.png"}
		},
		"no assets": func(s *RewardShapeA) { s.Metadata.CampaignAssets = map[string]string{} },
		"category":  func(s *RewardShapeA) { s.Metadata.BrandCategory = []string{"food", "travel"} },
		"terms":     func(s *RewardShapeA) { s.Metadata.TermsAndConditions = strings.Repeat("<", 3) },
	} {
		t.Run(name, func(t *testing.T) {
			changed := a
			change(&changed)
			check(key, changed)
			check(key, a) // and back
		})
	}
	kb := key
	kb.b = true
	check(kb, b)
	b2 := b
	b2.Price.CoinID = uuid.New()
	check(kb, b2)
	b3 := b
	b3.Inventory.AvailableQuantity = 0
	check(kb, b3)
	// A shape of the other kind under a key (never made by listItem) is still its own JSON.
	check(key, b)
}

// The cache drops its entries rather than grow past its limit.
func TestListItemCacheStaysWithinItsLimit(t *testing.T) {
	t.Parallel()
	c := newItemCache(10_000)
	for i := range 1000 {
		s := RewardShapeA{ID: uuid.New(), Name: strings.Repeat("n", i%50)}
		c.encoded(itemKey{reward: s.ID, lang: "fr"}, s)
		require.LessOrEqual(t, c.size, c.limit)
	}
	require.NotEmpty(t, c.entries)
}

// sameShape tells apart two shapes that differ in any one field, whichever it is: each leaf of
// both shapes (found by reflection, so a field added later is found too) is changed in a copy in
// turn.
func TestSameShapeSeesEveryField(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	meta := RewardMetadata{BrandName: "Brand", BrandLogoImage: "l", CampaignCoverImage: "c", CampaignTitle: "t", CampaignSubTitle: "s",
		CampaignDetails: "d", TermsAndConditions: "tc", HowToRedeem: "h", BrandCategory: []string{"food"}, CampaignAssets: map[string]string{"a": "b"}}
	for _, base := range []any{
		RewardShapeA{ID: uuid.New(), Name: "n", Description: "d", Type: "COUPON", BrandID: "B", BrandName: "Brand", OrganizationID: "O",
			EndDate: &end, Metadata: meta, AvailableQuantity: 3, Price: 1, MaxPrice: 2, MinPrice: 1, FlagAllowStudioEditPrice: true},
		RewardShapeB{ID: uuid.New(), BrandID: "B", BrandName: "Brand", OrganizationID: "O",
			Metadata:  RewardMetadataB{RewardMetadata: meta, CampaignExpiryDate: &end},
			Inventory: InventoryBody{AvailableQuantity: 3, Type: "CODE_POOL"}, Price: PriceBody{Amount: 1, CoinID: uuid.New()}},
	} {
		typ := reflect.TypeOf(base)
		require.True(t, sameShape(base, deepCopy(t, base)), "%s: a copy is the same", typ)
		leaves := changeLeaf(reflect.New(typ).Elem(), -1)
		require.Greater(t, leaves, 10)
		for i := range leaves {
			changed := reflect.New(typ)
			changed.Elem().Set(reflect.ValueOf(deepCopy(t, base)))
			changeLeaf(changed.Elem(), i)
			before, _ := json.Marshal(base)
			after, _ := json.Marshal(changed.Elem().Interface())
			require.NotEqual(t, string(before), string(after), "%s leaf %d: the change shows in the JSON", typ, i)
			require.False(t, sameShape(base, changed.Elem().Interface()), "%s leaf %d: %s", typ, i, after)
		}
	}
	require.False(t, sameShape(RewardShapeA{}, RewardShapeB{}))
}

// deepCopy copies a shape through its JSON.
func deepCopy(t *testing.T, shape any) any {
	b, err := json.Marshal(shape)
	require.NoError(t, err)
	out := reflect.New(reflect.TypeOf(shape))
	require.NoError(t, json.Unmarshal(b, out.Interface()))
	return out.Elem().Interface()
}

// changeLeaf changes the leaf numbered at (in the order of the fields, depth first) of the
// settable v, and returns how many leaves v has; with at < 0 it only counts them.
func changeLeaf(v reflect.Value, at int) int {
	if v.Kind() == reflect.Struct && v.Type() != reflect.TypeFor[time.Time]() {
		n := 0
		for i := range v.NumField() {
			n += changeLeaf(v.Field(i), at-n)
		}
		return n
	}
	if at != 0 {
		return 1
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Array: // uuid.UUID
		v.Index(0).SetUint(v.Index(0).Uint() ^ 1)
	case reflect.Pointer: // *time.Time
		later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		v.Set(reflect.ValueOf(&later))
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.ValueOf("more")))
	case reflect.Map:
		v.SetMapIndex(reflect.ValueOf("more"), reflect.ValueOf("x"))
	default:
		panic("changeLeaf: a leaf of kind " + v.Kind().String() + ": teach it, and sameShape, this field")
	}
	return 1
}
