package rules

// Variant is Xiangqi behind the sdk contract.
type Variant struct{}
