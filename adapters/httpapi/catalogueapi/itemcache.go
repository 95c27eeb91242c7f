package catalogueapi

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// listItems holds the JSON of the store list's items. Encoding a page of 20 items (tens of kB of
// texts, HTML-escaped) was a third of the CPU the service spent on GET /rewards; the items of the
// first pages of each order are asked for again and again and rarely change.
//
// It is exact whatever changes, by construction: an entry is the item's shape (RewardShapeA or
// RewardShapeB, everything its JSON is made of: localised texts, prices in the coin, the
// available quantity, dates, assets) with the bytes json.Marshal gave for it, and it is served
// only for a shape equal to the one it was made from (sameShape: every field, the contents of its
// maps and slices and the times its pointers point to). The shape is built for every
// request from the read model's snapshot, the coin's value and the pool stock, as before, so a
// new snapshot, a price override, a changed coin value or a sold code makes a different shape,
// and the item is encoded again. Nothing is keyed by version or expires: a stale entry can only
// miss. The key (reward, coin, language, shape B) only spreads the entries, so that two
// languages or coins of one reward do not evict each other.
var listItems = newItemCache(4 << 20)

// itemKey is where an item's entry is kept.
type itemKey struct {
	reward, coin uuid.UUID
	lang         string
	b            bool
}

type itemEntry struct {
	shape any
	json  []byte
}

// itemCache is a map of entries up to about limit bytes of JSON (keys counted): when an entry
// would pass it, every entry is dropped and the map fills again from the items asked for.
type itemCache struct {
	mu      sync.RWMutex
	entries map[itemKey]itemEntry
	size    int
	limit   int
}

func newItemCache(limit int) *itemCache {
	return &itemCache{entries: map[itemKey]itemEntry{}, limit: limit}
}

// encoded returns json.Marshal(shape), from the entry of key when it was made from an equal shape.
func (c *itemCache) encoded(key itemKey, shape any) []byte {
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && sameShape(e.shape, shape) {
		return e.json
	}
	b, err := json.Marshal(shape)
	if err != nil {
		return nil // the page's encoder writes it, and meets the error itself
	}
	cost := len(b) + len(key.lang)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.size -= len(old.json) + len(key.lang)
	}
	if c.size+cost > c.limit {
		clear(c.entries)
		c.size = 0
	}
	c.entries[key] = itemEntry{shape: shape, json: b}
	c.size += cost
	return b
}

// sameShape says whether two list item shapes write the same JSON: the same type and every field
// equal, maps and slices by content (nil apart from empty: one is null, the other {} or []), end
// dates by the times they point to. TestSameShapeSeesEveryField changes each field of both
// shapes in turn, so a field added to a shape and not compared here fails it. (reflect.DeepEqual
// would do, at about 2 µs an item, a tenth of what encoding it costs.)
func sameShape(x, y any) bool {
	switch x := x.(type) {
	case RewardShapeA:
		y, ok := y.(RewardShapeA)
		return ok && x.ID == y.ID && x.Name == y.Name && x.Description == y.Description && x.Type == y.Type &&
			x.BrandID == y.BrandID && x.BrandName == y.BrandName && x.OrganizationID == y.OrganizationID &&
			sameTime(x.EndDate, y.EndDate) && sameMetadata(x.Metadata, y.Metadata) && x.AvailableQuantity == y.AvailableQuantity &&
			x.Price == y.Price && x.MaxPrice == y.MaxPrice && x.MinPrice == y.MinPrice && x.FlagAllowStudioEditPrice == y.FlagAllowStudioEditPrice
	case RewardShapeB:
		y, ok := y.(RewardShapeB)
		return ok && x.ID == y.ID && x.BrandID == y.BrandID && x.BrandName == y.BrandName && x.OrganizationID == y.OrganizationID &&
			sameMetadata(x.Metadata.RewardMetadata, y.Metadata.RewardMetadata) &&
			sameTime(x.Metadata.CampaignExpiryDate, y.Metadata.CampaignExpiryDate) && x.Inventory == y.Inventory && x.Price == y.Price
	}
	return false
}

func sameMetadata(x, y RewardMetadata) bool {
	return x.BrandName == y.BrandName && x.BrandLogoImage == y.BrandLogoImage && x.CampaignCoverImage == y.CampaignCoverImage &&
		x.CampaignTitle == y.CampaignTitle && x.CampaignSubTitle == y.CampaignSubTitle && x.CampaignDetails == y.CampaignDetails &&
		x.TermsAndConditions == y.TermsAndConditions && x.HowToRedeem == y.HowToRedeem &&
		(x.BrandCategory == nil) == (y.BrandCategory == nil) && slices.Equal(x.BrandCategory, y.BrandCategory) &&
		(x.CampaignAssets == nil) == (y.CampaignAssets == nil) && maps.Equal(x.CampaignAssets, y.CampaignAssets)
}

// sameTime compares the instants and their locations (what RFC 3339 writes), as == on time.Time does.
func sameTime(x, y *time.Time) bool {
	if x == nil || y == nil {
		return x == y
	}
	return *x == *y
}
