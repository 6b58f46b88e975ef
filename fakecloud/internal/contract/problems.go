package contract

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.Und)

// problemsOf turns a validation error into one problem per field, the
// first message for each, in the order found. A missing property is named
// as the field itself. Of the alternatives of a oneOf or anyOf, only the
// closest is reported: the one whose enums and constants the value meets
// (such as a service's protocol), and then the one with fewest problems.
func problemsOf(err error, prefix string) []Problem {
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return nil
	}
	return leaves(ve, prefix)
}

func leaves(ve *jsonschema.ValidationError, prefix string) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(field, msg string) {
		if field == "" {
			field = "body"
		}
		if !seen[field] {
			seen[field] = true
			out = append(out, Problem{field, msg})
		}
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		field := fieldName(prefix, e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, name := range k.Missing {
				add(join(field, name), "is required")
			}
			return
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				add(join(field, name), "is not a known property")
			}
			return
		case *kind.OneOf, *kind.AnyOf:
			if len(e.Causes) > 0 {
				for _, p := range leaves(closest(e.Causes), prefix) {
					add(p.Field, p.Message)
				}
				return
			}
			add(field, "matches more than one of the accepted forms")
			return
		}
		if len(e.Causes) == 0 {
			add(field, describe(e.ErrorKind))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// fieldName writes an instance location as the API names fields:
// public_net.ipv4, services.0.http (array indexes are path segments too).
func fieldName(prefix string, loc []string) string {
	return join(prefix, strings.Join(slices.Clone(loc), "."))
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// closest picks the alternative a value was most likely meant to be.
func closest(alternatives []*jsonschema.ValidationError) *jsonschema.ValidationError {
	best, bestMiss, bestCount := alternatives[0], -1, 0
	for _, alt := range alternatives {
		miss, count := score(alt)
		if bestMiss < 0 || miss < bestMiss || (miss == bestMiss && count < bestCount) {
			best, bestMiss, bestCount = alt, miss, count
		}
	}
	return best
}

// score counts an alternative's enum and const failures, and its failures.
func score(e *jsonschema.ValidationError) (miss, count int) {
	if len(e.Causes) == 0 {
		switch e.ErrorKind.(type) {
		case *kind.Enum, *kind.Const:
			return 1, 1
		}
		return 0, 1
	}
	for _, c := range e.Causes {
		m, n := score(c)
		miss, count = miss+m, count+n
	}
	return miss, count
}

// describe words the failures a request most often has; the validator's
// own words, which group digits (86,400), serve for the rest.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return "must be at least " + k.Want.RatString() + ", got " + k.Got.RatString()
	case *kind.Maximum:
		return "must be at most " + k.Want.RatString() + ", got " + k.Got.RatString()
	case *kind.ExclusiveMinimum:
		return "must be more than " + k.Want.RatString() + ", got " + k.Got.RatString()
	case *kind.ExclusiveMaximum:
		return "must be less than " + k.Want.RatString() + ", got " + k.Got.RatString()
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d items, got %d", k.Want, k.Got)
	}
	return k.LocalizedString(printer)
}
