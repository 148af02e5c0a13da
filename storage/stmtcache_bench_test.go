package storage

import (
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// BenchmarkStatementMix runs what a turn's activities mostly run through
// gorm, on a SQLite file without and with the statement cache: a read by id,
// an update with RETURNING and an insert, once outside a transaction and once
// inside one. One op is those six statements and a commit.
//
//	go test -run '^$' -bench BenchmarkStatementMix -benchmem ./storage
func BenchmarkStatementMix(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{{"uncached", 0}, {"cached", stmtCacheSize}} {
		b.Run(bc.name, func(b *testing.B) {
			db := openCache(b, bc.size)
			at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			for id := range int64(100) {
				if err := db.Create(&cacheRow{ID: id + 1, Name: "seed", At: at, Payload: []byte("p")}).Error; err != nil {
					b.Fatal(err)
				}
			}
			next := int64(1000)
			mix := func(tx *gorm.DB) error {
				var r cacheRow
				if err := tx.First(&r, next%100+1).Error; err != nil {
					return err
				}
				var back []cacheRow
				if err := tx.Model(&back).Clauses(clause.Returning{}).Where("id = ?", r.ID).
					Updates(map[string]any{"count": gorm.Expr("count + 1"), "ended": at}).Error; err != nil {
					return err
				}
				next++
				return tx.Create(&cacheRow{ID: next, Name: "new", At: at, Payload: []byte("payload")}).Error
			}
			b.ReportAllocs()
			start := cpuTime(b)
			for b.Loop() {
				if err := mix(db.DB); err != nil {
					b.Fatal(err)
				}
				if err := db.Transaction(mix); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
