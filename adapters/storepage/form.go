package storepage

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/players"
)

// maxForm bounds a form's body.
const maxForm = 16 << 10

// purchaseForm is the buy form of a reward's page.
type purchaseForm struct {
	Denomination   *money.Amount
	Quantity       int
	AddressID      string
	IdempotencyKey string
}

// parsePurchase reads the buy form; problem is what is wrong with it, in words.
func parsePurchase(w http.ResponseWriter, r *http.Request) (f purchaseForm, problem string) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return f, "The form could not be read."
	}
	if d := strings.TrimSpace(r.PostForm.Get("denomination")); d != "" {
		a, err := money.Parse(d)
		if err != nil || a <= 0 {
			return f, "Choose a value."
		}
		f.Denomination = &a
	}
	f.Quantity = 1
	if q := r.PostForm.Get("quantity"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 {
			return f, "The quantity must be a whole number, at least 1."
		}
		f.Quantity = n
	}
	f.AddressID = r.PostForm.Get("addressId")
	f.IdempotencyKey = r.PostForm.Get("idempotencyKey")
	if len(f.IdempotencyKey) < 16 || len(f.IdempotencyKey) > 64 {
		return f, "The page was out of date: check the reward and try again."
	}
	return f, ""
}

// parseAddress reads the profile form.
func parseAddress(w http.ResponseWriter, r *http.Request) (players.Address, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return players.Address{}, false
	}
	get := func(k string) string { return strings.TrimSpace(r.PostForm.Get(k)) }
	return players.Address{Name: get("name"), Line1: get("line1"), Line2: get("line2"), Landmark: get("landmark"), City: get("city"),
		State: get("state"), PinCode: get("pinCode"), Phone: get("phone"), Default: true}, true
}

func itoa(n int) string { return strconv.Itoa(n) }
