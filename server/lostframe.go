package server

// frameLost tells the turns that a frame was answered with a null id
// (issue 28 #11): a step-1 payload still pending may have been in it, so a
// later step of its turn is TURN_BOUNDARY_UNAVAILABLE rather than
// PROCESSING_OVERLAP. Before initialize there are no turns.
func (s *Server) frameLost() {
	if svc := s.svc(); svc != nil {
		svc.turns.FrameLost()
	}
}
