// Package assistant builds what the model is sent (the instructions, the
// message's context, history and the turn so far) and chooses which tools
// a turn offers. It does not call the model or run tools.
package assistant
