package proxy

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// syncLedger completes pl from the ledger, which knows when a session was
// first seen and the accounts it used, before this run and in other proxies
// on the same data directory; it adds acct to the session's set there. The
// ledger is asked once per session and run, and again only for an account
// new to the session: an account another proxy adds later is seen here at
// this proxy's next new account or restart (the set is what the page
// shows; items are judged by their recorded issuer alone).
func (p *Proxy) syncLedger(ctx context.Context, session string, acct Account, pl *placed) error {
	if !pl.synced {
		born, err := p.ledger.born(ctx, session, pl.firstSeen.UnixMilli())
		if err != nil {
			return err
		}
		pl.firstSeen = time.UnixMilli(born)
		p.sessions.bornAt(session, pl.firstSeen)
	}
	if pl.stale {
		// The row exists once born has run in this run; a failed write
		// costs the page's listing after a restart, not this request.
		if err := p.ledger.seen(ctx, session, pl.client, p.nowMs()); err != nil {
			p.cfg.Log.Warn("last seen not recorded in the ledger", zap.String("session", session), zapErr(err))
		}
	}
	if pl.synced && !pl.newAccount {
		return nil
	}
	seen, err := p.ledger.accounts(ctx, session, acct)
	if err != nil {
		return err
	}
	p.sessions.addAccounts(session, seen)
	return nil
}

// side forwards a side request (requestKeys.side) unchanged, recording its
// account in the session's set and, through the tap, what its answer
// issues; it counts as no turn.
func (p *Proxy) side(w http.ResponseWriter, r *http.Request, body []byte, keys requestKeys, acct Account, now time.Time) error {
	pl := p.sessions.note(keys, acct, now)
	if err := p.syncLedger(r.Context(), keys.session, acct, &pl); err != nil {
		return ledgerFailed(keys.session, err)
	}
	p.forward(w, r, [][]byte{body}, &flight{session: keys.session, account: acct, side: true})
	return nil
}
