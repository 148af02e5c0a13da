package assistant

import "regexp"

// settingsWords are what a message about the person's own assistant
// settings says: the settings themselves, the write policy and its modes,
// a default model or the reasoning effort.
var settingsWords = regexp.MustCompile(`(?i)\b(settings?|write[ -]?policy|preview mode|needs[ -]me mode|immediate mode|default model|(use|switch to|change) (the |my )?model|reasoning effort|effort)\b`)

// AsksAboutSettings tells whether a message is about the person's
// assistant settings: only then is hub_update_settings offered (reserved,
// so the ranking cannot drop it), and it is never offered otherwise.
func AsksAboutSettings(message string) bool { return settingsWords.MatchString(message) }
