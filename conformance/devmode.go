package conformance

// CheckFiles loads the case at casePath and checks the device capture
// against the reference in device mode (CheckDevice). The error is
// non-nil only when something is unusable; the report then says why.
func CheckFiles(casePath, input, dev string, opt Options) (*Report, error) {
	rep := newReport(ModeDevice, opt.MaxShown, nil)
	rep.Vector = casePath
	c, err := LoadCase(casePath)
	if err == nil {
		rep, err = CheckDevice(c, input, dev, opt)
		rep.Vector = casePath
	}
	if err != nil {
		rep.Verdict, rep.Error = Unusable, err.Error()
	}
	return rep, err
}

// CheckDevice compares a device capture with the reference in device mode.
func CheckDevice(c *Case, input, dev string, opt Options) (*Report, error) {
	return RunExact(c, input, dev, opt)
}
