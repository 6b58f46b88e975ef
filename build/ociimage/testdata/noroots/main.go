// Command noroots is a static binary without the compiled-in CA roots, which
// the image builder must refuse.
package main

func main() {}
