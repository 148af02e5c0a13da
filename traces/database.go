package traces

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// A span of each SQL statement, with its SQL text but not its values (they
// are people's data). Not gorm.io/plugin/opentelemetry: it links the MySQL
// and ClickHouse drivers into the binary.

// StatementStart starts the span of a statement about to run in ctx: nil
// when tracing is off or ctx is in no trace (a statement on its own is
// noise).
func (t *Tracer) StatementStart(ctx context.Context, op, dialect string) any {
	if !t.On() || !trace.SpanFromContext(ctx).SpanContext().IsValid() {
		return nil
	}
	_, span := t.tp.Tracer("hub/sql").Start(ctx, "sql "+op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", dialect), attribute.String("db.operation", op)))
	return span
}

// StatementEnd ends the span StatementStart returned, with the statement's
// text, rows affected and error.
func StatementEnd(span any, sql string, rows int64, err error) {
	s, ok := span.(trace.Span)
	if !ok {
		return
	}
	s.SetAttributes(attribute.String("db.statement", sql), attribute.Int64("db.rows_affected", rows))
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}
