package continuation

// coldHistory accounts for every predecessor event that neither is in the
// context nor already has a handle: the older history outside the
// compiler's window, the turn markers and tool traffic between messages,
// the events after the initiating message. Each contiguous run becomes
// one omitted item with reason not_selected, so the manifest names every
// event the successor did not receive and session_recall reaches it.
func coldHistory(in compileInput, included, omitted []ManifestItem) []ManifestItem {
	covered := map[int64]bool{in.initiating.Seq: true}
	mark := func(items []ManifestItem) {
		for _, it := range items {
			if it.SessionID != in.predecessorID || it.Kind == KindResource || it.Kind == KindMemory {
				continue
			}
			from, to := it.FromEventID, it.ToEventID
			if it.EventID != "" {
				from, to = it.EventID, it.EventID
			}
			a, _ := parseEventID(from)
			b, _ := parseEventID(to)
			for _, seq := range in.historySeqs {
				if seq >= a && seq <= b {
					covered[seq] = true
				}
			}
		}
	}
	mark(included)
	mark(omitted)
	var out []ManifestItem
	start, n := -1, 0
	flush := func(end int) {
		if start < 0 {
			return
		}
		from, to := in.historySeqs[start], in.historySeqs[end]
		item := ManifestItem{Tier: TierHistory, Kind: KindSessionEvents, SessionID: in.predecessorID,
			FromEventID: eventID(from), ToEventID: eventID(to), Events: n, Reason: ReasonNotSelected}
		if from == to {
			item.Kind, item.FromEventID, item.ToEventID, item.EventID = KindSessionEvent, "", "", eventID(from)
		}
		out = append(out, item)
		start, n = -1, 0
	}
	for i, seq := range in.historySeqs {
		if covered[seq] {
			flush(i - 1)
			continue
		}
		if start < 0 {
			start = i
		}
		n++
	}
	flush(len(in.historySeqs) - 1)
	return out
}
