// Package assistant builds what the model is sent: the instructions (the
// system message, unchanged from one message to the next so a provider's
// prompt cache reuses it), the message's context, history, and the
// transcript of the turn so far, and it chooses which tools a turn offers.
//
// It builds text and llm requests only; it does not call the model or run
// tools.
package assistant
