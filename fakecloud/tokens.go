package fakecloud

import (
	"errors"
	"fmt"
)

// A project's tokens can change while fakecloud runs, as a user creates
// and deletes tokens in the Console: a test rotates a client's token,
// then revokes the old one, and sees whether the client noticed.

// token tells whether a token is the project's, and whether it may write.
func (s *Server) token(t string) (write, known bool) {
	s.tokMu.RLock()
	defer s.tokMu.RUnlock()
	write, known = s.tokens[t]
	return write, known
}

// AddToken gives the project a token, read-only or not, from now on; one
// it has changes its access. A token of another project is refused, as is
// one an HTTP header cannot carry.
func (s *Server) AddToken(token string, readOnly bool) error {
	if s.name != "" {
		return errors.New("token: a further project's tokens are those of --project; the default project's change")
	}
	if token == "" {
		return errors.New("token: is required")
	}
	for _, c := range token {
		if c < 0x21 || c > 0x7e {
			return errors.New("token: only printable ASCII without spaces can be sent in an Authorization header")
		}
	}
	if p, ok := s.byToken[token]; ok {
		return fmt.Errorf("token: it is project %s's", p.name)
	}
	s.tokMu.Lock()
	defer s.tokMu.Unlock()
	s.tokens[token] = !readOnly
	return nil
}

// RevokeToken takes a token away: from now on it gets 401 unauthorized,
// as a token deleted in the Console does.
func (s *Server) RevokeToken(token string) error {
	s.tokMu.Lock()
	defer s.tokMu.Unlock()
	if _, ok := s.tokens[token]; !ok {
		return errors.New("token: the project has no such token")
	}
	delete(s.tokens, token)
	return nil
}
