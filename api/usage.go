package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"hub/usage"
	"hub/workspace"
)

// MaxUsageRange is the longest time range one usage query sums.
const MaxUsageRange = 366 * 24 * time.Hour

// MaxMonthlyBudget bounds a space's budget (a billion dollars, in micro-dollars), so the
// month's sums never come near int64's end.
const MaxMonthlyBudget int64 = 1_000_000_000_000_000

// totalsDTO is summed model calls.
type totalsDTO struct {
	Key               string `json:"key,omitempty" doc:"The group's person, space, model or day."`
	Calls             int64  `json:"calls"`
	InputTokens       int64  `json:"inputTokens"`
	CachedInputTokens int64  `json:"cachedInputTokens"`
	OutputTokens      int64  `json:"outputTokens"`
	CostMicros        int64  `json:"costMicros" doc:"Micro-dollars."`
	Cost              string `json:"cost" doc:"The cost in US dollars, for reading (\"0.012345\")."`
}

func toTotalsDTO(t usage.Totals) totalsDTO {
	return totalsDTO{Key: t.Key, Calls: t.Calls, InputTokens: t.InputTokens, CachedInputTokens: t.CachedInputTokens,
		OutputTokens: t.OutputTokens, CostMicros: t.CostMicros, Cost: usage.Dollars(t.CostMicros)}
}

type usageReportDTO struct {
	From    time.Time   `json:"from"`
	To      time.Time   `json:"to"`
	SpaceID string      `json:"spaceId,omitempty"`
	GroupBy string      `json:"groupBy,omitempty"`
	Total   totalsDTO   `json:"total"`
	Groups  []totalsDTO `json:"groups"`
}

// usage sums everyone's calls in the spaces the person owns and theirs elsewhere; spaceId
// narrows it to one of their spaces.
func (s *Server) usage(c *gin.Context) (any, error) {
	ctx := c.Request.Context()
	from, ferr := usageTime(c.Query("from"), "/from", false)
	to, terr := usageTime(c.Query("to"), "/to", true)
	if err := cmp.Or(ferr, terr); err != nil {
		return nil, err
	}
	if to.IsZero() {
		to = time.Now().UTC()
	}
	if from.IsZero() {
		from = time.Date(to.Year(), to.Month(), 1, 0, 0, 0, 0, time.UTC) // the month so far
		if !from.Before(to) {
			from = time.Date(to.Year(), to.Month()-1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	if !to.After(from) {
		return nil, badRequest("/to", "must be after from")
	}
	if to.Sub(from) > MaxUsageRange {
		return nil, badRequest("/to", "the range from from to to is longer than a year (366 days); ask for less at a time")
	}
	groupBy := c.Query("groupBy")
	if !usage.ValidGroupBy(groupBy) {
		return nil, badRequest("/groupBy", "must be person, space, model, day or purpose")
	}
	me := person(c).ID
	f := usage.Filter{From: from, To: to, GroupBy: groupBy}
	spaceID := c.Query("spaceId")
	if spaceID != "" {
		role, err := s.Workspace.Access(ctx, me, spaceID)
		if err != nil {
			return nil, err
		}
		if role == workspace.RoleOwner {
			f.Spaces = []string{spaceID}
		} else {
			f.Person, f.PersonSpace = me, spaceID
		}
	} else {
		spaces, err := s.Workspace.ListSpaces(ctx, me)
		if err != nil {
			return nil, err
		}
		for _, sp := range spaces {
			if sp.Role == workspace.RoleOwner {
				f.Spaces = append(f.Spaces, sp.ID)
			}
		}
		f.Person = me
	}
	rep, err := s.Usage.Query(ctx, f)
	return usageReportDTO{From: from, To: to, SpaceID: spaceID, GroupBy: groupBy, Total: toTotalsDTO(rep.Total),
		Groups: toDTOs(rep.Groups, toTotalsDTO)}, err
}

// usageTime reads an RFC 3339 time or a date (UTC; with end, that day's end); "": zero.
func usageTime(v, path string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	return time.Time{}, badRequest(path, "must be an RFC 3339 time (2026-12-01T09:00:00Z) or a date (2026-12-01)")
}

type spaceSettingsDTO struct {
	MonthlyBudget *int64 `json:"monthlyBudget" doc:"Micro-dollars a month; null: no budget."`
	Month         string `json:"month" doc:"The UTC month the spend is of (2026-12)."`
	Spent         int64  `json:"spent" doc:"What settled calls cost this month, micro-dollars."`
	Reserved      int64  `json:"reserved" doc:"What calls in flight hold, micro-dollars."`
	Left          *int64 `json:"left" doc:"What the budget has left, micro-dollars; null without a budget."`
}

func (s *Server) getSpaceSettings(c *gin.Context) (any, error) {
	if _, err := s.Workspace.Access(c.Request.Context(), person(c).ID, c.Param("spaceId")); err != nil {
		return nil, err
	}
	return s.spaceSettings(c.Request.Context(), c.Param("spaceId"))
}

func (s *Server) spaceSettings(ctx context.Context, spaceID string) (any, error) {
	sp, err := s.Usage.Budget(ctx, spaceID)
	out := spaceSettingsDTO{MonthlyBudget: sp.Budget, Month: sp.Month, Spent: sp.Spent, Reserved: sp.Reserved}
	if sp.Budget != nil {
		left := max(*sp.Budget-sp.Spent-sp.Reserved, 0)
		out.Left = &left
	}
	return out, err
}

type updateSpaceSettingsRequest struct {
	MonthlyBudget Optional[json.RawMessage] `json:"monthlyBudget"`
}

// updateSpaceSettings: owners only.
func (s *Server) updateSpaceSettings(c *gin.Context) (any, error) {
	ctx := c.Request.Context()
	spaceID := c.Param("spaceId")
	role, err := s.Workspace.Access(ctx, person(c).ID, spaceID)
	if err != nil {
		return nil, err
	}
	if role != workspace.RoleOwner {
		return nil, fmt.Errorf("only an owner of the space changes its settings: %w", workspace.ErrForbidden)
	}
	var req updateSpaceSettingsRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.MonthlyBudget.Set {
		if err := s.setBudget(c, spaceID, req.MonthlyBudget); err != nil {
			return nil, err
		}
	}
	return s.spaceSettings(ctx, spaceID)
}

// setBudget sets the space's budget (null: none) and records a change in the audit log.
func (s *Server) setBudget(c *gin.Context, spaceID string, v Optional[json.RawMessage]) error {
	ctx := c.Request.Context()
	var budget *int64
	if !v.Null {
		b, err := budgetValue(v.Value)
		if err != nil {
			return err
		}
		budget = &b
	}
	was, err := s.Usage.Budget(ctx, spaceID)
	if err != nil {
		return err
	}
	if err := s.Usage.SetBudget(ctx, spaceID, budget); err != nil || sameBudget(was.Budget, budget) {
		return err
	}
	summary := "Removed the monthly budget"
	if budget != nil {
		summary = "Set the monthly budget to " + usage.Dollars(*budget)
	}
	return s.Workspace.RecordSettingsChange(ctx, actor(c), spaceID, summary,
		map[string]any{"monthlyBudget": map[string]any{"before": was.Budget, "after": budget}})
}

// budgetValue reads a JSON integer of micro-dollars, 0 to MaxMonthlyBudget.
func budgetValue(raw json.RawMessage) (int64, error) {
	const path = "/monthlyBudget"
	v := strings.TrimSpace(string(raw))
	if v == "" || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, badRequest(path, "must be a whole number of micro-dollars (5000000 is $5.00), or null for no budget")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, badRequest(path, "must be a whole number of micro-dollars (5000000 is $5.00), not "+v)
	}
	if n < 0 {
		return 0, badRequest(path, "cannot be negative; use null for no budget")
	}
	if n > MaxMonthlyBudget {
		return 0, badRequest(path, fmt.Sprintf("must be at most %d (a billion dollars)", MaxMonthlyBudget))
	}
	return n, nil
}

func sameBudget(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
