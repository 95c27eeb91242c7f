package vouchers

import (
	"fmt"
	"strings"
)

// The sandbox brands: ordering one of their items forces an outcome. Each has FIXED_VALUE items
// in INR and USD.
const (
	// SandboxFail refuses every order at once.
	SandboxFail = "SANDBOX_FAIL"
	// SandboxSlow accepts an order as PENDING and issues it after the sandbox delay.
	SandboxSlow = "SANDBOX_SLOW"
	// SandboxSlowFail accepts an order as PENDING and refuses it after the sandbox delay.
	SandboxSlowFail = "SANDBOX_SLOW_FAIL"
	// SandboxNoStock has no stock: every denomination is unavailable and every order is refused.
	SandboxNoStock = "SANDBOX_NO_STOCK"
)

// brandSpec is one brand of the built-in catalogue.
type brandSpec struct {
	key, name, website, desc string
	categories, countries    []string
	items                    []itemSpec
}

// itemSpec is one item of a brand: FIXED_VALUE when fixed is set, else VARIABLE_VALUE.
type itemSpec struct {
	currency string
	discount string
	fixed    []string
	min, max string
	// limited caps the stock of some face values (FIXED) or of the item (VARIABLE, key "").
	limited map[string]int64
}

func fixed(currency, discount string, faces ...string) itemSpec {
	return itemSpec{currency: currency, discount: discount, fixed: faces}
}

func variable(currency, discount, min, max string) itemSpec {
	return itemSpec{currency: currency, discount: discount, min: min, max: max}
}

// limit caps the stock of face value face at n cards.
func (s itemSpec) limit(face string, n int64) itemSpec {
	m := map[string]int64{}
	for k, v := range s.limited {
		m[k] = v
	}
	m[face] = n
	s.limited = m
	return s
}

var (
	in   = []string{"IN"}
	us   = []string{"US"}
	gb   = []string{"GB"}
	inUS = []string{"IN", "US"}
	usGB = []string{"US", "GB"}
	all  = []string{"IN", "US", "GB"}
)

// catalogue is the fake's fixed catalogue: its brand keys and UTIDs never change, so syncs see
// the same products every time.
var catalogue = []brandSpec{
	{"AMAZON", "Amazon", "https://www.amazon.com", "Millions of products across books, electronics, fashion, home and more, delivered fast.",
		[]string{"Shopping"}, all, []itemSpec{
			fixed("INR", "2.5", "100", "250", "500", "1000", "2000", "5000"),
			variable("INR", "2", "10", "10000"),
			fixed("USD", "1.5", "10", "25", "50", "100"),
			fixed("GBP", "1.5", "10", "25", "50"),
		}},
	{"FLIPKART", "Flipkart", "https://www.flipkart.com", "India's online marketplace for mobiles, fashion, electronics, home and appliances.",
		[]string{"Shopping", "Electronics"}, in, []itemSpec{
			fixed("INR", "4.5", "250", "500", "1000", "2000", "5000"),
			variable("INR", "4", "100", "10000"),
		}},
	{"MYNTRA", "Myntra", "https://www.myntra.com", "Fashion and lifestyle: clothing, footwear and accessories from top brands.",
		[]string{"Fashion", "Shopping"}, in, []itemSpec{fixed("INR", "6", "500", "1000", "2000")}},
	{"SWIGGY", "Swiggy", "https://www.swiggy.com", "Food delivery from restaurants near you, and groceries with Instamart.",
		[]string{"Food & Dining"}, in, []itemSpec{fixed("INR", "5", "100", "250", "500", "1000")}},
	{"ZOMATO", "Zomato", "https://www.zomato.com", "Order food online or book a table at the best restaurants in your city.",
		[]string{"Food & Dining"}, in, []itemSpec{variable("INR", "5.5", "100", "5000")}},
	{"BIGBASKET", "BigBasket", "https://www.bigbasket.com", "Groceries, fruit, vegetables and household essentials delivered to your door.",
		[]string{"Groceries", "Shopping"}, in, []itemSpec{fixed("INR", "3", "500", "1000", "2000")}},
	{"CROMA", "Croma", "https://www.croma.com", "Electronics and appliances: phones, laptops, TVs and more.",
		[]string{"Electronics"}, in, []itemSpec{fixed("INR", "2", "1000", "2000", "5000", "10000").limit("10000", 5)}},
	{"GOOGLE_PLAY", "Google Play", "https://play.google.com", "Apps, games, books and more on Google Play.",
		[]string{"Entertainment", "Gaming"}, inUS, []itemSpec{
			fixed("INR", "0", "100", "300", "500", "1000", "1500"),
			fixed("USD", "0", "10", "15", "25", "50", "100"),
		}},
	{"UBER", "Uber", "https://www.uber.com", "Rides and Uber Eats deliveries in cities around the world.",
		[]string{"Travel", "Food & Dining"}, all, []itemSpec{
			fixed("INR", "3", "250", "500", "1000"),
			variable("USD", "2", "15", "500"),
		}},
	{"STARBUCKS", "Starbucks", "https://www.starbucks.com", "Coffee, tea and food at Starbucks stores.",
		[]string{"Food & Dining"}, all, []itemSpec{
			fixed("INR", "5", "500", "1000"),
			fixed("USD", "4", "5", "10", "25", "50"),
			fixed("GBP", "4", "5", "10", "25"),
		}},
	{"NETFLIX", "Netflix", "https://www.netflix.com", "Films, series and documentaries, streaming on any screen.",
		[]string{"Entertainment"}, inUS, []itemSpec{
			fixed("INR", "1", "500", "1000", "2000"),
			fixed("USD", "1", "25", "30", "50", "100"),
		}},
	{"SPOTIFY", "Spotify", "https://www.spotify.com", "Music and podcasts: months of Spotify Premium.",
		[]string{"Entertainment"}, all, []itemSpec{
			fixed("INR", "2", "199", "399", "699"),
			fixed("USD", "2", "10.99", "32.97", "65.94"),
		}},
	{"STEAM", "Steam", "https://store.steampowered.com", "Games, software and hardware on the Steam store.",
		[]string{"Gaming"}, all, []itemSpec{
			fixed("INR", "0", "250", "500", "1000", "2000"),
			fixed("USD", "0", "5", "10", "20", "50", "100"),
		}},
	{"XBOX", "Xbox", "https://www.xbox.com", "Games, add-ons and Game Pass on Xbox and Windows.",
		[]string{"Gaming"}, all, []itemSpec{
			fixed("INR", "1", "500", "1000", "2000"),
			fixed("USD", "1", "10", "15", "25", "50", "100"),
		}},
	{"PLAYSTATION", "PlayStation", "https://www.playstation.com", "Games, add-ons and subscriptions on PlayStation Store.",
		[]string{"Gaming"}, all, []itemSpec{
			fixed("INR", "1", "500", "1000", "2000", "4000").limit("4000", 10),
			fixed("USD", "1", "10", "25", "50", "75", "100"),
		}},
	{"NIKE", "Nike", "https://www.nike.com", "Athletic footwear, apparel and gear.",
		[]string{"Fashion", "Sports"}, usGB, []itemSpec{variable("USD", "5", "25", "500")}},
	{"ADIDAS", "Adidas", "https://www.adidas.com", "Sportswear, shoes and accessories.",
		[]string{"Fashion", "Sports"}, all, []itemSpec{
			fixed("INR", "7.5", "1000", "2000", "5000"),
			fixed("USD", "6", "25", "50", "100"),
		}},
	{"APPLE", "Apple", "https://www.apple.com", "Products, accessories, apps, games, music, movies, TV and iCloud+.",
		[]string{"Electronics", "Entertainment"}, all, []itemSpec{
			fixed("INR", "1", "500", "1000", "2000", "5000"),
			fixed("USD", "0.5", "25", "50", "100").limit("100", 25),
			variable("USD", "0.5", "2", "2000"),
		}},
	{"WALMART", "Walmart", "https://www.walmart.com", "Groceries, home goods, electronics and more at everyday low prices.",
		[]string{"Shopping", "Groceries"}, us, []itemSpec{
			fixed("USD", "3", "25", "50", "100"),
			variable("USD", "3", "10", "500"),
		}},
	{"TARGET", "Target", "https://www.target.com", "Home, clothing, electronics, groceries and more.",
		[]string{"Shopping"}, us, []itemSpec{fixed("USD", "2.5", "10", "25", "50", "100", "250")}},
	{"BEST_BUY", "Best Buy", "https://www.bestbuy.com", "Consumer electronics, computers, appliances and games.",
		[]string{"Electronics"}, us, []itemSpec{fixed("USD", "1.5", "25", "50", "100", "250", "500").limit("500", 3)}},
	{"DOMINOS", "Domino's", "https://www.dominos.com", "Pizza, sides and desserts, delivered hot.",
		[]string{"Food & Dining"}, inUS, []itemSpec{
			fixed("INR", "8", "100", "250", "500"),
			fixed("USD", "5", "10", "25"),
		}},
	{"NYKAA", "Nykaa", "https://www.nykaa.com", "Beauty, make-up, skincare and wellness products.",
		[]string{"Beauty", "Fashion"}, in, []itemSpec{fixed("INR", "6.5", "250", "500", "1000", "2000")}},
	{"MAKEMYTRIP", "MakeMyTrip", "https://www.makemytrip.com", "Flights, hotels, holidays, trains and buses.",
		[]string{"Travel"}, in, []itemSpec{
			fixed("INR", "3.5", "1000", "2500", "5000"),
			variable("INR", "3.5", "1000", "50000"),
		}},
	{"BOOKMYSHOW", "BookMyShow", "https://in.bookmyshow.com", "Tickets for movies, events, plays and sports.",
		[]string{"Entertainment"}, in, []itemSpec{fixed("INR", "10", "250", "500", "1000")}},
	{"DECATHLON", "Decathlon", "https://www.decathlon.in", "Sports equipment, clothing and footwear for 70+ sports.",
		[]string{"Sports", "Shopping"}, in, []itemSpec{fixed("INR", "5", "500", "1000", "2000", "5000")}},
	{"IKEA", "IKEA", "https://www.ikea.com", "Affordable furniture, home accessories and decor.",
		[]string{"Home", "Shopping"}, all, []itemSpec{
			fixed("INR", "2", "1000", "2500", "5000"),
			fixed("USD", "2", "25", "50", "100"),
		}},
	{"HM", "H&M", "https://www.hm.com", "Fashion and quality at the best price.",
		[]string{"Fashion"}, all, []itemSpec{
			fixed("INR", "4", "500", "1000", "2000"),
			fixed("USD", "4", "25", "50"),
			fixed("GBP", "4", "10", "25"),
		}},
	{"SEPHORA", "Sephora", "https://www.sephora.com", "Make-up, skincare, fragrance and hair care.",
		[]string{"Beauty"}, usGB, []itemSpec{fixed("USD", "3", "25", "50", "100")}},
	{"AIRBNB", "Airbnb", "https://www.airbnb.com", "Unique stays and experiences around the world.",
		[]string{"Travel"}, all, []itemSpec{
			fixed("INR", "1", "2000", "5000"),
			variable("USD", "1", "25", "1000"),
		}},
	{"AJIO", "AJIO", "https://www.ajio.com", "Curated fashion and lifestyle brands.",
		[]string{"Fashion"}, in, []itemSpec{fixed("INR", "8.5", "500", "1000", "2000")}},
	{"PVR", "PVR INOX", "https://www.pvrcinemas.com", "Movie tickets and food at PVR INOX cinemas.",
		[]string{"Entertainment"}, in, []itemSpec{fixed("INR", "9", "250", "500", "1000")}},
	{"TANISHQ", "Tanishq", "https://www.tanishq.co.in", "Gold, diamond and silver jewellery.",
		[]string{"Jewellery", "Fashion"}, in, []itemSpec{fixed("INR", "1", "1000", "5000", "10000", "25000").limit("25000", 2)}},
	{"LIFESTYLE", "Lifestyle", "https://www.lifestylestores.com", "Fashion, footwear, beauty and home for the family.",
		[]string{"Fashion", "Shopping"}, in, []itemSpec{fixed("INR", "7", "500", "1000", "2000")}},
	{"TATA_CLIQ", "Tata CLiQ", "https://www.tatacliq.com", "Electronics, fashion and luxury, online.",
		[]string{"Shopping", "Electronics"}, in, []itemSpec{variable("INR", "4.25", "250", "25000")}},
	{"ROBLOX", "Roblox", "https://www.roblox.com", "Robux and Premium for the Roblox platform.",
		[]string{"Gaming"}, all, []itemSpec{
			fixed("INR", "0", "500", "1000", "2000"),
			fixed("USD", "0", "10", "25", "50"),
		}},
	{"PIZZA_HUT", "Pizza Hut", "https://www.pizzahut.com", "Pizza, pasta and wings for delivery or takeaway.",
		[]string{"Food & Dining"}, inUS, []itemSpec{
			fixed("INR", "7.5", "250", "500"),
			fixed("USD", "5", "10", "25", "50"),
		}},
	{"DOORDASH", "DoorDash", "https://www.doordash.com", "Food, groceries and more from local stores, delivered.",
		[]string{"Food & Dining"}, us, []itemSpec{fixed("USD", "4", "15", "25", "50", "100")}},
	{"HOME_DEPOT", "The Home Depot", "https://www.homedepot.com", "Home improvement, tools, appliances and garden.",
		[]string{"Home"}, us, []itemSpec{variable("USD", "2", "10", "2000")}},
	{"NINTENDO", "Nintendo eShop", "https://www.nintendo.com", "Games and add-ons for Nintendo Switch.",
		[]string{"Gaming"}, usGB, []itemSpec{fixed("USD", "0", "20", "35", "50").limit("35", 0)}},
	{"EBAY", "eBay", "https://www.ebay.com", "New and used items from sellers everywhere.",
		[]string{"Shopping"}, us, []itemSpec{variable("USD", "3.75", "5", "500")}},
	{"MACYS", "Macy's", "https://www.macys.com", "Clothing, shoes, jewellery, beauty and home.",
		[]string{"Fashion", "Shopping"}, us, []itemSpec{fixed("USD", "6", "25", "50", "100")}},
	{"CHIPOTLE", "Chipotle", "https://www.chipotle.com", "Burritos, bowls, tacos and salads.",
		[]string{"Food & Dining"}, us, []itemSpec{fixed("USD", "7", "10", "25", "50")}},
	{"LYFT", "Lyft", "https://www.lyft.com", "Rides, bikes and scooters.",
		[]string{"Travel"}, us, []itemSpec{fixed("USD", "2", "25", "50", "100")}},
	{"HOTELS_COM", "Hotels.com", "https://www.hotels.com", "Hotels, apartments and holiday homes worldwide.",
		[]string{"Travel"}, usGB, []itemSpec{variable("USD", "4", "50", "1000")}},
	{"DUNKIN", "Dunkin'", "https://www.dunkindonuts.com", "Coffee, donuts and breakfast sandwiches.",
		[]string{"Food & Dining"}, us, []itemSpec{fixed("USD", "8", "5", "10", "25")}},
	{"TESCO", "Tesco", "https://www.tesco.com", "Groceries, clothing and home in store and online.",
		[]string{"Groceries", "Shopping"}, gb, []itemSpec{fixed("GBP", "3", "10", "20", "50")}},
	{"MARKS_SPENCER", "Marks & Spencer", "https://www.marksandspencer.com", "Clothing, food and home.",
		[]string{"Fashion", "Groceries"}, gb, []itemSpec{variable("GBP", "5", "5", "500")}},

	sandbox(SandboxFail, "Sandbox: Refused", "Every order of this brand is refused at once."),
	sandbox(SandboxSlow, "Sandbox: Slow", "Every order of this brand stays PENDING, then is issued after the sandbox delay (10 s)."),
	sandbox(SandboxSlowFail, "Sandbox: Slow Refusal", "Every order of this brand stays PENDING, then is refused after the sandbox delay (10 s)."),
	sandbox(SandboxNoStock, "Sandbox: No Stock", "This brand has no stock: every order is refused as out of stock."),
}

func sandbox(key, name, desc string) brandSpec {
	return brandSpec{key, name, "https://sandbox.vouchers.invalid", desc, []string{"Sandbox"}, inUS, []itemSpec{
		fixed("INR", "0", "100", "500", "1000"),
		fixed("USD", "0", "5", "10", "25"),
	}}
}

// utid is the stable id of a brand's item in a currency.
func utid(brandKey, currency string, fixedValue bool) string {
	kind := "V"
	if fixedValue {
		kind = "F"
	}
	return "U-" + brandKey + "-" + currency + "-" + kind
}

func terms(name string) string {
	return fmt.Sprintf("%s gift cards are valid for 12 months from issue. They cannot be exchanged for cash, "+
		"reloaded, or replaced if lost or stolen. %s is not a sponsor of this promotion.", name, name)
}

func howToRedeem(name, website string) string {
	host := strings.TrimPrefix(website, "https://")
	return fmt.Sprintf("1. Sign in at %s or in the %s app. 2. Go to Gift Cards and choose Add a gift card. "+
		"3. Enter the code and PIN. 4. The balance is applied to your next purchase.", host, name)
}

func must(s string) cents {
	a, err := parseCents(s)
	if err != nil {
		panic(err)
	}
	return a
}
