package workflows

import "hub/activities"

// ErrTypeGone is the type of the application error an Apply update fails
// with when its conversation or message is gone, or its person can no
// longer open the conversation's space: the api answers 404, as for a
// record that does not exist.
const ErrTypeGone = activities.ErrTypeGone
