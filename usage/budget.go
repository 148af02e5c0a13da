package usage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"hub/storage"
)

// BudgetError is a call refused before its request: its estimate does not
// fit what is left of the space's monthly budget. All amounts are
// micro-dollars.
type BudgetError struct {
	Budget   int64 // the space's monthly budget
	Spent    int64 // settled this month
	Reserved int64 // held by calls in flight
	Needed   int64 // this call's estimate
}

// Left is what the budget has left this month (never below zero).
func (e *BudgetError) Left() int64 { return max(e.Budget-e.Spent-e.Reserved, 0) }

// Error is the message the person reads.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("This space's monthly budget of %s cannot hold the next model call: %s is left this month and the call needs up to %s. "+
		"An owner of the space can raise the budget in its settings; then Retry.", Dollars(e.Budget), Dollars(e.Left()), Dollars(e.Needed))
}

// Dollars formats micro-dollars as US dollars, exactly: $5.00, $0.00042.
func Dollars(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	frac := strings.TrimRight(fmt.Sprintf("%06d", micros%1_000_000), "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return fmt.Sprintf("%s$%d.%s", sign, micros/1_000_000, frac)
}

// Spend is a space's budget and its month so far, in micro-dollars.
type Spend struct {
	Month    string
	Budget   *int64 // nil: no budget
	Spent    int64
	Reserved int64
}

// Budget returns a space's monthly budget and this month's spend.
func (s *Store) Budget(ctx context.Context, spaceID string) (Spend, error) {
	month := Month(s.now())
	var sp storage.Space
	if err := s.q(ctx).Select("id", "monthly_budget_micros").Where("id = ?", spaceID).Take(&sp).Error; err != nil {
		return Spend{}, fmt.Errorf("budget of %s: %w", spaceID, err)
	}
	var row storage.SpaceSpend
	err := s.q(ctx).Where("space_id = ? AND month = ?", spaceID, month).Take(&row).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return Spend{}, fmt.Errorf("spend of %s: %w", spaceID, err)
	}
	return Spend{Month: month, Budget: sp.MonthlyBudgetMicros, Spent: row.SpentMicros, Reserved: row.ReservedMicros}, nil
}

// SetBudget sets a space's monthly budget in micro-dollars (nil: none). The
// caller checks that the person is an owner.
func (s *Store) SetBudget(ctx context.Context, spaceID string, micros *int64) error {
	if micros != nil && *micros < 0 {
		return fmt.Errorf("a budget cannot be negative: %d", *micros)
	}
	err := s.q(ctx).Model(&storage.Space{}).Where("id = ?", spaceID).Update("monthly_budget_micros", micros).Error
	if err != nil {
		return fmt.Errorf("set budget of %s: %w", spaceID, err)
	}
	return nil
}
