// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package liveio

import "errors"

// Port is an AF_PACKET socket; it exists on Linux only.
type Port struct{}

var errOS = errors.New("liveio: live ports need Linux (AF_PACKET)")

// Open fails: live ports need Linux.
func Open(iface string, o Options) (*Port, error) { return nil, errOS }

// Name returns "".
func (p *Port) Name() string { return "" }

// MTU returns 0.
func (p *Port) MTU() int { return 0 }

// MaxFrame returns 0.
func (p *Port) MaxFrame(tagged bool) int { return 0 }

// Write fails.
func (p *Port) Write(frame []byte) error { return errOS }

// Read fails.
func (p *Port) Read() (Frame, error) { return Frame{}, errOS }

// StopReading does nothing.
func (p *Port) StopReading() error { return nil }

// Stats fails.
func (p *Port) Stats() (Stats, error) { return Stats{}, errOS }

// Unread fails.
func (p *Port) Unread(taken uint64) (uint64, error) { return 0, errOS }

// Close does nothing.
func (p *Port) Close() error { return nil }
