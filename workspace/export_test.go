package workspace

import "time"

// SetNow replaces the service's clock, for tests of expiry.
func (s *Service) SetNow(now func() time.Time) { s.now = now }
