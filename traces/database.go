package traces

import (
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"
)

// dbSpans is a gorm plugin that makes a span of each statement, with its
// SQL text but not its values (they are people's data). Written here
// rather than taken from gorm.io/plugin/opentelemetry, which links the
// MySQL and ClickHouse drivers into the binary.
type dbSpans struct{ tracer trace.Tracer }

func (*dbSpans) Name() string { return "hub:traces" }

// spanKey holds a statement's span in its gorm.Statement's settings.
const spanKey = "hub:traces:span"

func (p *dbSpans) Initialize(db *gorm.DB) error {
	cb := db.Callback()
	for _, reg := range []struct {
		name          string
		before, after func(string, func(*gorm.DB)) error
	}{
		{"create", cb.Create().Before("gorm:create").Register, cb.Create().After("gorm:create").Register},
		{"query", cb.Query().Before("gorm:query").Register, cb.Query().After("gorm:query").Register},
		{"update", cb.Update().Before("gorm:update").Register, cb.Update().After("gorm:update").Register},
		{"delete", cb.Delete().Before("gorm:delete").Register, cb.Delete().After("gorm:delete").Register},
		{"row", cb.Row().Before("gorm:row").Register, cb.Row().After("gorm:row").Register},
		{"raw", cb.Raw().Before("gorm:raw").Register, cb.Raw().After("gorm:raw").Register},
	} {
		if err := reg.before("hub:traces:before_"+reg.name, p.start(reg.name)); err != nil {
			return fmt.Errorf("database tracing (%s): %w", reg.name, err)
		}
		if err := reg.after("hub:traces:after_"+reg.name, p.end); err != nil {
			return fmt.Errorf("database tracing (%s): %w", reg.name, err)
		}
	}
	return nil
}

func (p *dbSpans) start(op string) func(*gorm.DB) {
	return func(db *gorm.DB) {
		ctx := db.Statement.Context
		if ctx == nil || !trace.SpanFromContext(ctx).SpanContext().IsValid() {
			return // not in a trace: a statement on its own is noise
		}
		_, span := p.tracer.Start(ctx, "sql "+op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system", db.Dialector.Name()), attribute.String("db.operation", op)))
		db.Statement.Settings.Store(spanKey, span)
	}
}

func (p *dbSpans) end(db *gorm.DB) {
	v, ok := db.Statement.Settings.LoadAndDelete(spanKey)
	if !ok {
		return
	}
	span := v.(trace.Span)
	span.SetAttributes(attribute.String("db.statement", db.Statement.SQL.String()), attribute.Int64("db.rows_affected", db.Statement.RowsAffected))
	if err := db.Error; err != nil && err != gorm.ErrRecordNotFound {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
