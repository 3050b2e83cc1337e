package harness

import (
	"maps"
	"slices"
)

// Device is a class of screen: its viewport in CSS pixels, the pixel ratio,
// whether it is a mobile layout with touch, and the user agent it announces.
type Device struct {
	Width, Height int64
	Scale         float64
	Mobile        bool
	Touch         bool
	// UserAgent empty keeps the browser's own.
	UserAgent string
}

// Devices are the device classes a scenario's actor may name. Programs that
// use the package may add their own before loading scenarios.
var Devices = map[string]Device{
	"phone": {
		Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true,
		UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
	},
	"tablet": {
		Width: 820, Height: 1180, Scale: 2, Mobile: true, Touch: true,
		UserAgent: "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
	},
	"desktop": {
		Width: 1366, Height: 900, Scale: 1,
	},
}

// Viewport overrides parts of an actor's device in a scenario.
type Viewport struct {
	Width     int64   `yaml:"width"`
	Height    int64   `yaml:"height"`
	Scale     float64 `yaml:"scale"`
	Mobile    *bool   `yaml:"mobile"`
	Touch     *bool   `yaml:"touch"`
	UserAgent string  `yaml:"userAgent"`
}

func (a Actor) device() Device {
	d := Devices[a.Device]
	if v := a.Viewport; v != nil {
		if v.Width > 0 {
			d.Width = v.Width
		}
		if v.Height > 0 {
			d.Height = v.Height
		}
		if v.Scale > 0 {
			d.Scale = v.Scale
		}
		if v.Mobile != nil {
			d.Mobile = *v.Mobile
		}
		if v.Touch != nil {
			d.Touch = *v.Touch
		}
		if v.UserAgent != "" {
			d.UserAgent = v.UserAgent
		}
	}
	return d
}

func deviceNames() []string { return slices.Sorted(maps.Keys(Devices)) }
