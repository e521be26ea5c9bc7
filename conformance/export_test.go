// SPDX-License-Identifier: Apache-2.0

package conformance

// SetJudgeAhead turns device mode's judging of frames ahead of their turn
// on or off, for tests that compare the reports it gives either way.
func SetJudgeAhead(on bool) { judgeAhead = on }
