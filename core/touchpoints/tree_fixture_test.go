package touchpoints

import "github.com/rewardsco/rewards/core/catalogue"

var (
	catalogueProduct1 = catalogue.Product{ID: "sku-1", Name: "One"}
	catalogueProduct2 = catalogue.Product{ID: "sku-2", Name: "Two"}
)
