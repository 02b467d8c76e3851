package money_test

import (
	"encoding/json"
	"fmt"

	"github.com/agenttrust/service/money"
)

func Example() {
	var req struct {
		Amount   money.Amount   `json:"amount"`
		Currency money.Currency `json:"currency"`
	}
	if err := json.Unmarshal([]byte(`{"amount":"100.50","currency":"USD"}`), &req); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(money.ValidateAmount(req.Amount, req.Currency) == nil, req.Amount, req.Amount.StringFixed(2))

	fmt.Println(money.MustParse("0.1").Add(money.MustParse("0.2")))
	fmt.Println(money.ValidateAmount(money.MustParse("1.5"), "JPY"))
	fmt.Println(money.ValidateAmount(money.MustParse("0"), "USD"))
	_, err := money.ParseAmount("1,000")
	fmt.Println(err)
	_, err = money.ParseCurrency("usd")
	fmt.Println(err)
	// Output:
	// true 100.5 100.50
	// 0.3
	// invalid amount 1.5: JPY allows at most 0 decimal places
	// invalid amount 0: must be greater than zero
	// invalid amount "1,000": must be a decimal number such as 100.50
	// invalid currency "usd": must be upper case, e.g. USD
}
