package dbtest

import (
	"testing"

	"gorm.io/gorm"

	"hub/models"
)

// TestTakeCommits: a statement outside a transaction is a commit, a
// transaction of several statements one, and two transactions one after
// the other two.
func TestTakeCommits(t *testing.T) {
	Each(t, func(t *testing.T, url string) {
		db := Open(t, url)
		rec := Record(t, db)
		var n int64
		if err := db.Model(&models.Person{}).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Model(&models.Space{}).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		if got := rec.TakeCommits(); got != 2 {
			t.Fatalf("two statements alone: %d commits", got)
		}
		for range 2 {
			err := db.Transaction(func(tx *gorm.DB) error {
				for range 3 {
					if err := tx.Model(&models.Person{}).Count(&n).Error; err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := rec.TakeCommits(); got != 2 {
			t.Fatalf("two transactions of three statements: %d commits", got)
		}
		if got := len(rec.Take()); got != 8 {
			t.Fatalf("%d statements, want 8", got)
		}
	})
}
