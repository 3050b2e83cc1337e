// Package qrtest proves that webui/static/js/qr.js draws real QR codes. Its
// tests run the module in headless Chromium, as the site serves it, and read
// every symbol back with an independent decoder (gozxing), from the matrix
// and from Chromium's own rendering of the SVG; they also compare every
// module with gozxing's encoder. It holds no code the site uses.
package qrtest
