package players

import (
	"net/mail"
	"regexp"
	"strings"
)

var (
	phonePattern = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)
	otpPattern   = regexp.MustCompile(`^[0-9]{6}$`)
	pinPattern   = regexp.MustCompile(`^[1-9][0-9]{5}$`)
)

// ValidPhone reports whether s is an E.164 number.
func ValidPhone(s string) bool { return phonePattern.MatchString(s) }

// IndianStates are the states and union territories a delivery address may name.
var IndianStates = []string{
	"Andhra Pradesh", "Arunachal Pradesh", "Assam", "Bihar", "Chhattisgarh", "Goa", "Gujarat", "Haryana",
	"Himachal Pradesh", "Jharkhand", "Karnataka", "Kerala", "Madhya Pradesh", "Maharashtra", "Manipur",
	"Meghalaya", "Mizoram", "Nagaland", "Odisha", "Punjab", "Rajasthan", "Sikkim", "Tamil Nadu", "Telangana",
	"Tripura", "Uttar Pradesh", "Uttarakhand", "West Bengal",
	"Andaman and Nicobar Islands", "Chandigarh", "Dadra and Nagar Haveli and Daman and Diu", "Delhi",
	"Jammu and Kashmir", "Ladakh", "Lakshadweep", "Puducherry",
}

func canonicalState(s string) (string, bool) {
	for _, st := range IndianStates {
		if strings.EqualFold(st, strings.TrimSpace(s)) {
			return st, true
		}
	}
	return "", false
}

// validateAddresses checks and normalises delivery addresses in place.
func validateAddresses(list []Address) error {
	if len(list) > 10 {
		return invalid("at most 10 addresses")
	}
	defaults := 0
	for i := range list {
		a := &list[i]
		a.Line1, a.City = strings.TrimSpace(a.Line1), strings.TrimSpace(a.City)
		switch {
		case a.Line1 == "" || len(a.Line1) > 200:
			return invalid("addresses[%d].line1 is required, at most 200 characters", i)
		case len(a.Line2) > 200 || len(a.Landmark) > 200 || len(a.Name) > 100:
			return invalid("addresses[%d]: line2 and landmark at most 200 characters, name at most 100", i)
		case a.City == "" || len(a.City) > 100:
			return invalid("addresses[%d].city is required, at most 100 characters", i)
		case !pinPattern.MatchString(a.PinCode):
			return invalid("addresses[%d].pinCode must be a 6-digit Indian PIN code", i)
		case a.Phone != "" && !ValidPhone(a.Phone):
			return invalid("addresses[%d].phone must be E.164, e.g. +919876543210", i)
		}
		st, ok := canonicalState(a.State)
		if !ok {
			return invalid("addresses[%d].state must be an Indian state or union territory", i)
		}
		a.State = st
		if a.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return invalid("at most one address can be the default")
	}
	return nil
}

func validEmail(s string) bool {
	if s == "" {
		return true
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && len(s) <= 254
}
