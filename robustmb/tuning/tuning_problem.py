"""A tuning problem: minimise the worst soft goal subject to hard goals and stability.

The problem holds *terms* (one per goal and model: a closed-loop measure of a
:class:`TunableLFT`), the full closed loops whose poles must be stable, and the
parameter vector.  A run first makes the loop stable (minimising the spectral
abscissa), then satisfies the hard goals (minimising the worst one below 1), then
minimises the worst soft goal by nonsmooth BFGS; unstable points, points outside the
bounds and points violating a hard goal are ``inf``, so the line search keeps every
iterate feasible.  Where those boundaries block every step, the step is projected onto
them (stability and the worst hard goal as constraints, :mod:`.domain_constraints`).
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np

from .domain_constraints import boundary_message, domain_constraints
from .level_set_core import poles
from .nonsmooth_bfgs import AT_BOUNDARY, BFGSRun, bfgs, continue_rescued, gradient_sampling
from .parametrization import ParameterVector
from .run_record import ZERO_FALL, RunRecord, _first_below, _unpolished, zero_met
from .solve_options import check_solve_options
from .spectral_gradients import spectral_abscissa_gradient, spectral_radius_gradient
from .tuning_term import check_multipeak

MIN_DECAY = 1e-7  # poles must satisfy Re(p) <= -MIN_DECAY (as MATLAB's systune default)
# A line-search trial's soft evaluation stops once a gain above level (1 + REJECT_MARGIN)
# is found (objective): the margin covers the inner responses' rounding, so a stopped
# trial is one the full inner evaluation rejects too.  On 360 lightly damped loops with
# modal condition 1e3-1e7 the stopped bound was at most 9e-4 above the full value and
# 5.4e-4 above the norm (tests/tuning/test_early_rejection.py).
REJECT_MARGIN = 1e-3
# A run's soft-phase BFGS stops once its value has gained at most PROGRESS[1] (relative)
# over the last PROGRESS[0] iterations (bfgs ``window``): on COMPleib such runs crawl
# along a kink (HE4, DIS1, HF2D11: hundreds of iterations for parts per ten thousand)
# and the polish that follows (gradient sampling) is the better tool there.
PROGRESS = (100, 1e-4)
# solve(abandon=m) looks back over this many iterations of a random start's BFGS (and
# checks from that iteration on): with m = 10 (hinfstruct's default), the same horizon
# of 500 iterations as 5 windows of 100, available from iteration 50 instead of 100.
ABANDON_WINDOW = 50
# Perturbed restarts of the stabilise phase when it ends on an unstable loop (run()).
STABILISE_RETRIES = 3
NO_DECREASE = "line search found no decrease"


class TuningProblem:
    """Worst soft term subject to hard terms < 1 and stable loops (see module docstring).

    ``multipeak`` (default ``True``): the soft phase's BFGS takes the multi-peak step of
    Apkarian and Noll wherever two or more pieces are active (:meth:`pieces`);
    ``False``: plain nonsmooth BFGS on one subgradient per point.
    """

    def __init__(
        self,
        params: ParameterVector,
        soft,
        hard=(),
        loops=(),
        *,
        min_decay=MIN_DECAY,
        multipeak=True,
    ):
        self.params = params
        self.soft = list(soft)
        self.hard = list(hard)
        self.loops = list(loops)
        self.min_decay = min_decay
        # The multi-peak step of Apkarian and Noll (see :meth:`pieces`); False: plain BFGS.
        self.multipeak = check_multipeak(multipeak, "TuningProblem")
        # Line-search state (:meth:`above`, :meth:`objective`, :meth:`rejected`): the
        # terms' state before the last screened trial, and that trial's (x bytes, level).
        self._screened = None
        self._trial = None

    # ----------------------------------------------------------------- measures
    def abscissa(self, x):
        """Worst spectral abscissa (discrete: radius - 1) over the closed loops, and gradient."""
        best, grad = -np.inf, np.zeros(self.params.size)
        for lft in self.loops:
            a, *_ = lft.statespace(x)
            # Continuous: the spectral abscissa; discrete: the spectral radius minus 1.
            measure = spectral_radius_gradient if lft.dt else spectral_abscissa_gradient
            alpha, ga = measure(a)
            if alpha > best:
                n = a.shape[0]
                gs = np.zeros((n + lft.ny, n + lft.nu))
                gs[:n, :n] = ga
                best, grad = alpha, lft.chain(x, gs)
        return best, grad

    def _worst(self, terms, x, *, below_limit=False, above=None):
        best, grad = -np.inf, np.zeros(self.params.size)
        for t in terms:
            v, g = t.evaluate(x, below_limit=below_limit, above=above)
            if not np.isfinite(v):
                return np.inf, None
            if v > best:
                best, grad = v, g
        return best, grad

    def _stable(self, x):
        for lft in self.loops:
            a = lft.statespace(x)[0]
            if not a.shape[0]:
                continue
            lam = poles(a)  # the inner evaluation's verdict asks for them too (a memo)
            worst = np.max(np.abs(lam)) - 1.0 if lft.dt else np.max(lam.real)
            if worst >= -self.min_decay:
                return False
        return True

    def _saved_terms(self, peaks=False):
        """The soft and hard terms' evaluation state: ``(state, last)`` per term (the
        peak-frequency hint and the last gradient), with the last multi-peak set too
        when ``peaks``; :meth:`_restore_terms` puts it back."""
        terms = self.soft + self.hard
        if peaks:
            return [(t._state, t._last, t._peaks) for t in terms]
        return [(t._state, t._last) for t in terms]

    def _restore_terms(self, saved):
        """Put back what :meth:`_saved_terms` saved (nothing when ``saved`` is None or
        belongs to another set of terms)."""
        terms = self.soft + self.hard
        if saved is None or len(saved) != len(terms):
            return
        for t, kept in zip(terms, saved, strict=True):
            t._state, t._last = kept[0], kept[1]
            if len(kept) == 3:
                t._peaks = kept[2]

    def values(self, x):
        """Soft and hard term values at ``x`` (``inf`` when unstable)."""
        return [t.evaluate(x, gradient=False)[0] for t in self.soft], [
            t.evaluate(x, gradient=False)[0] for t in self.hard
        ]

    # ------------------------------------------------------------------ phases
    def _in_bounds(self, x):
        return self.params.within_bounds(x)

    def _phase_stabilise(self, x, rescue=None):
        # Minimise max(alpha, -margin): flat once the margin is reached, so the line
        # search stops there instead of driving the (often linear) abscissa to -inf.
        scale = max(
            (
                np.max(np.abs(np.linalg.eigvals(lft.statespace(x)[0])), initial=0.0)
                for lft in self.loops
            ),
            default=1.0,
        )
        margin = max(10 * self.min_decay, 1e-3 * max(1.0, scale))

        def fun(y):
            if not self._in_bounds(y):
                return np.inf, None
            alpha, g = self.abscissa(y)
            if alpha < -margin:
                return -margin, np.zeros_like(g)
            return alpha, g

        if rescue is not None:  # a failed phase continued (nonsmooth_bfgs.continue_rescued)
            return continue_rescued(fun, rescue, maxiter=300, stop_below=-margin * (1 - 1e-9))
        return bfgs(fun, x, maxiter=300, stop_below=-margin * (1 - 1e-9))

    def _phase_hard(self, x):
        def fun(y):
            if not self._in_bounds(y) or not self._stable(y):
                return np.inf, None
            return self._worst(self.hard, y)

        # Restart BFGS (fresh metric) while it keeps improving: the worst hard goal is
        # often a kink against the stability barrier, where one metric stalls.
        # The multi-peak step where a Poles goal is hard (several poles level at its
        # kink, where one subgradient stalls); hard H-infinity goals keep the plain BFGS
        # step of the designs tuned before it (the robotic arm's stored ones).
        poles = any(t.measure == "poles" for t in self.hard)
        pcs = self.hard_pieces if self.multipeak and poles else None
        con = partial(domain_constraints, self, hard=False) if self.loops else None
        r = bfgs(fun, x, maxiter=300, stop_below=1.0 - 1e-6, pieces=pcs, constraint=con)
        for _ in range(5):
            if r.f < 1.0 - 1e-6:
                break
            r2 = bfgs(fun, r.x, maxiter=300, stop_below=1.0 - 1e-6, pieces=pcs, constraint=con)
            if not r2.f < r.f * (1 - 1e-6):
                break
            r2.history = r.history + r2.history
            r = r2
        if not r.f < 1.0 and r.message == NO_DECREASE:  # today's failures only
            r = continue_rescued(fun, r, maxiter=300, stop_below=1.0 - 1e-6, pieces=pcs)
        return r

    def objective(self, x, *, below_limit=False):
        if not self._in_bounds(x) or not self._stable(x):
            return np.inf, None
        if self.hard:
            h, _ = self._worst(self.hard, x)
            if not h < 1.0:
                return np.inf, None
        if not self.soft:
            return 0.0, np.zeros(self.params.size)
        if below_limit:
            return self._worst(self.soft, x, below_limit=True)
        # A line-search trial that passed the screen (:meth:`above`) at this very x: its
        # soft evaluations may stop once they are above the trial's level (with a margin
        # for the rounding of the responses), since the search rejects it then anyway.
        trial, self._trial = self._trial, None
        stop = None
        if trial is not None and trial[0] == np.asarray(x, float).tobytes():
            stop = trial[1] + REJECT_MARGIN * abs(trial[1])
        return self._worst(self.soft, x, above=stop)

    # ------------------------------------------------ line-search screen (bfgs `screen`)
    def above(self, x, level):
        """True only when :meth:`objective` at ``x`` is above ``level``, by a cheap test.

        Outside the bounds (``inf``), or a soft term whose :meth:`Term.lower_bound` (one
        response at its last peak frequency) exceeds ``level``: the objective, a maximum
        over the soft terms (``inf`` when unstable), is then above it as well.  ``False``
        means "not decided": the line search evaluates the point.  Each call also keeps
        the soft and hard terms' evaluation state (peak-frequency hints) for
        :meth:`rejected`, and an undecided call keeps ``(x, level)``: the evaluation of
        that very ``x`` that follows (:meth:`objective`) stops its soft terms as soon as
        they are above ``level (1 + REJECT_MARGIN)``, since the point is rejected then.

        Examples
        --------
        >>> import control, numpy as np
        >>> import robustmb as rmb
        >>> from robustmb.lft.algebra import lft_lower
        >>> from robustmb.lft.model import as_model
        >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
        >>> from robustmb.tuning.tuning_term import Term
        >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
        >>> km = as_model(rmb.tunable_gain("K", 1, 1))
        >>> params = ParameterVector(km.tunables)
        >>> lft = TunableLFT(lft_lower(as_model(P), km), params)  # 1 / (s + 1 - K)
        >>> problem = TuningProblem(params, [Term(lft)], loops=[lft])
        >>> float(problem.objective(np.array([-1.0]))[0])
        0.5
        >>> problem.above(np.array([0.5]), 1.0)  # gain 1 / (1 - 0.5) = 2 at w = 0
        True
        >>> problem.above(np.array([-3.0]), 0.3)  # 0.25 there: not decided
        False
        """
        self._screened = self._saved_terms()
        self._trial = None
        if not self._in_bounds(x):
            return True
        if any(t.lower_bound(x) > level for t in self.soft):
            return True
        if np.isfinite(level):
            self._trial = (np.asarray(x, float).tobytes(), float(level))
        return False

    def rejected(self, x):
        """A trial point evaluated after :meth:`above` was rejected: the soft and hard
        terms' state goes back to what it was, so a rejected point never moves a
        peak-frequency hint (the same hints whether the cheap test or the evaluation
        rejected it).

        Examples
        --------
        >>> import control, numpy as np
        >>> import robustmb as rmb
        >>> from robustmb.lft.algebra import lft_lower
        >>> from robustmb.lft.model import as_model
        >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
        >>> from robustmb.tuning.tuning_term import Term
        >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
        >>> km = as_model(rmb.tunable_gain("K", 1, 1))
        >>> params = ParameterVector(km.tunables)
        >>> lft = TunableLFT(lft_lower(as_model(P), km), params)  # 1 / (s + 1 - K)
        >>> soft, hard = Term(lft), Term(lft, scale=0.5)
        >>> problem = TuningProblem(params, [soft], [hard], loops=[lft])
        >>> _ = problem.objective(np.array([-1.0]))
        >>> before = (soft._state, hard._state)
        >>> problem.above(np.array([-0.5]), 1.0)  # 1 / 1.5 < 1: not decided, evaluated
        False
        >>> _ = problem.objective(np.array([-0.5]))  # moves both terms' state
        >>> problem.rejected(np.array([-0.5]))  # the search rejects it: state restored
        >>> soft._state is before[0], hard._state is before[1]
        (True, True)
        """
        self._restore_terms(self._screened)
        self._screened = None

    def pieces(self, x, *, rel=0.05):
        """Active pieces of the soft objective at ``x``: ``(values, gradients, keys)``.

        Every local H-infinity peak (and H2 or pole value) of every soft term whose value
        is within ``rel`` (relative) of the worst one, over all goals and models; the
        multi-peak step (:func:`robustmb.tuning.multipeak.multipeak_direction`) models
        the objective by their maximum; ``keys`` rows are ``(term index, frequency)``
        (``nan``: not an H-infinity peak).  ``None`` outside the domain.
        """
        return self._pieces_of(self.soft, x, rel)

    def hard_pieces(self, x, *, rel=0.05):
        """Active pieces of the worst hard goal at ``x`` (as :meth:`pieces`, over the
        hard terms): the hard phase's multi-peak step sees every near-active pole of a
        ``Poles`` goal and every active goal, where one subgradient stalls at the kink."""
        if not self._in_bounds(x) or not self._stable(x):
            return None
        return self._pieces_of(self.hard, x, rel)

    @staticmethod
    def _pieces_of(terms, x, rel):
        if not terms:
            return None
        parts = [t.pieces(x, rel=rel) for t in terms]
        if any(p is None for p in parts):
            return None
        vals = np.concatenate([p[0] for p in parts])
        grads = np.concatenate([p[1] for p in parts])
        keys = np.concatenate(
            [np.column_stack([np.full(p[2].size, i, float), p[2]]) for i, p in enumerate(parts)]
        )
        keep = vals >= (1.0 - rel) * vals.max() if vals.max() > 0 else np.ones(vals.size, bool)
        return vals[keep], grads[keep], keys[keep]

    def _polish(self, r, ftol, hist, rounds=3, zero=-np.inf):
        """Gradient sampling where BFGS stopped, then BFGS again, while either gains.

        BFGS stalls on the kinks of a max function (several peak frequencies or goals
        active at once); sampled gradients around the point see every active piece.
        ``zero``: the absolute level of :meth:`run`'s ``zero_tol``; the BFGS runs stop,
        and no further round starts, once the value meets its rule (:func:`zero_met`,
        with the first value below the level taken from ``hist``).
        """
        if not np.isfinite(r.f) or r.g is None or not self.soft:
            return r
        for k in range(rounds):
            if zero_met(r.f, _first_below(hist, zero), zero):
                break
            x, f, g = gradient_sampling(
                self.objective, r.x, r.f, r.g, radius=1e-2, maxiter=20, seed=k, screen=self
            )
            hist.append(("sampling", f))
            if not f < r.f * (1 - ftol):
                break
            # A few parts per million are not worth another BFGS run and round.
            last = not f < r.f * (1 - 1e-5)
            r2 = bfgs(
                self.objective,
                x,
                maxiter=300,
                ftol=ftol,
                pieces=self.pieces if self.multipeak else None,
                screen=self,
                zero=(zero, ZERO_FALL, _first_below(hist, zero)) if np.isfinite(zero) else None,
                constraint=partial(domain_constraints, self),
            )
            if not r2.f <= f:
                r2.x, r2.f, r2.g = x, f, g
            hist += [("soft", v) for v in r2.history]
            if r2.active and not r2.f > f:
                at = boundary_message(self, r2.x, r2.active)
                r2.message = f"{r.message}; sampling and BFGS: {at}"
            else:
                r2.message = f"{r.message}; sampling and BFGS"
            r = r2
            if last:
                break
        return r

    def _below_limit(self, r, ftol):
        """Continue a run stalled on a parameter-independent high-frequency limit.

        The worst soft goal then has a zero gradient (its supremum is the constant
        feedthrough limit, e.g. ``1/peak_error`` of a tracking goal), so nothing drives
        the response at finite frequencies.  Its largest finite local maximum is
        minimised instead: ``max(limit, finite peak)`` never increases, so the goal's
        value stays where it was while the response below the limit improves.  It
        stops once that peak is half the limit: lower, nothing but an unbounded gain
        (when no other goal limits it) would be bought.
        """
        if r.g is None or not np.isfinite(r.f):
            return None
        if np.linalg.norm(r.g) > 1e-9 * max(1.0, abs(r.f)):
            return None
        f0, g0 = self.objective(r.x, below_limit=True)
        if not (np.isfinite(f0) and f0 < r.f * (1 - ftol)):
            return None
        target = 0.5 * r.f
        r2 = bfgs(
            lambda y: self.objective(y, below_limit=True),
            r.x,
            maxiter=300,
            ftol=ftol,
            stop_below=target,
        )
        if not self.objective(r2.x)[0] <= r.f * (1 + 1e-9):
            return None
        return r2

    def run(
        self,
        x0,
        *,
        maxiter=1000,
        ftol=1e-7,
        polish=True,
        stop_below=None,
        join=None,
        abandon=None,
        zero_tol=0.0,
        zero_level=None,
        verify=True,
    ) -> RunRecord:
        """One run from ``x0`` (module docstring); ``polish=False`` skips the gradient
        sampling where BFGS stops (about ``60 n`` evaluations per sampling round, the bulk
        of a run's time for ``n`` in the tens: an intermediate design can do without);
        ``stop_below`` stops the run as soon as the objective is below it; ``join =
        (v, rtol)`` stops it (message ``"joined"``, no polish) once its soft value is
        within ``[v, v (1 + rtol)]``, level with another run's ``v``; ``abandon = (level,
        m)`` stops it (message ``"abandoned"``, no polish) once its value minus ``m``
        times its gain over the last ``ABANDON_WINDOW`` BFGS iterations is still above
        ``level`` (bfgs ``abandon``).  ``zero_tol > 0`` (for soft terms that are never
        negative, such as norms): the run stops, unpolished, once the objective is below
        ``zero_tol`` times its value where the soft phase starts (recorded as
        ``zero_level``; one evaluation more) and has fallen by ``ZERO_FALL`` from the
        first value it had below that level (:func:`zero_met`, recorded as
        ``zero_done``): it is then within that absolute distance of any minimum and
        still falling geometrically towards 0; ``zero_level``, when given, is that level
        itself.  The value
        recorded is at least every soft term's :meth:`Term.verified` value at the final
        point (``hinfnorm``, not the optimiser's inner evaluation); ``verify=False``, for
        a run that :meth:`polish_run` polishes next, leaves that check to it (the record
        says ``verified=False`` until then)."""
        t0 = time.perf_counter()
        start = np.asarray(x0, float).copy()
        x, hist = start.copy(), []
        if self.loops and not self._stable(x):
            r = self._phase_stabilise(x)
            x = r.x
            hist += [("stabilise", v) for v in r.history]
            # A start stuck in the stabilise phase (a point where the abscissa's
            # subgradient vanishes or the line search finds no decrease, e.g. a PID at
            # zero on an unstable plant) is perturbed and tried again, from points
            # drawn by a fixed generator so that the run stays reproducible.
            rng = np.random.default_rng(len(start))
            for _ in range(STABILISE_RETRIES):
                if self._stable(x):
                    break
                r2 = self._phase_stabilise(self.random_point(rng, start))
                hist += [("stabilise", v) for v in r2.history]
                if r2.f < r.f:
                    r, x = r2, r2.x
            if not self._stable(x) and r.message == NO_DECREASE:
                n, r = len(r.history), self._phase_stabilise(x, rescue=r)
                x, hist = r.x, hist + [("stabilise", v) for v in r.history[n:]]
            if not self._stable(x):
                return RunRecord(
                    start, x, np.inf, hist, time.perf_counter() - t0, False, "could not stabilise"
                )
        if self.hard and not self._worst(self.hard, x)[0] < 1.0:
            r = self._phase_hard(x)
            x = r.x
            hist += [("hard", v) for v in r.history]
            if not self._worst(self.hard, x)[0] < 1.0:
                return RunRecord(
                    start,
                    x,
                    np.inf,
                    hist,
                    time.perf_counter() - t0,
                    False,
                    "could not meet the hard goals",
                )
        zero = -np.inf if zero_level is None else float(zero_level)
        if zero_level is None and zero_tol > 0 and self.soft:
            # The terms' evaluation state (peak-frequency hints) is put back, so that
            # this extra evaluation leaves the path of the run unchanged.
            saved = self._saved_terms()
            zero = zero_tol * abs(self.objective(x)[0])
            self._restore_terms(saved)
            zero = zero if np.isfinite(zero) else -np.inf
        pcs = self.pieces if self.multipeak else None
        opts = dict(
            maxiter=maxiter,
            ftol=ftol,
            stop_below=stop_below,
            pieces=pcs,
            join=join,
            screen=self,
            window=PROGRESS,
            abandon=None if abandon is None else (*abandon, ABANDON_WINDOW),
            zero=(zero, ZERO_FALL, np.inf) if np.isfinite(zero) else None,
            constraint=partial(domain_constraints, self),
        )
        r = bfgs(self.objective, x, **opts)
        # A stalled line search at a kink: restart with a fresh metric while it pays.
        for _ in range(5):
            if r.message in (
                "converged",
                "maximum number of iterations",
                "slow progress",
                "target reached",
                "joined",
                "abandoned",
            ):
                break
            if opts["zero"] is not None:
                opts["zero"] = (
                    zero,
                    ZERO_FALL,
                    _first_below([("soft", v) for v in r.history], zero),
                )
            r2 = bfgs(self.objective, r.x, **opts)
            act = tuple(sorted({*r.active, *r2.active}))  # what each restart found active
            if not r2.f < r.f * (1 - ftol):
                r.active = act
                break
            r2.history, r2.active = r.history + r2.history, act
            r = r2
        if r.message == AT_BOUNDARY:
            r.message = boundary_message(self, r.x, r.active)
        elif r.active:
            r.message = f"{r.message}; {boundary_message(self, r.x, r.active)}"
        hist += [("soft", v) for v in r.history]
        joined = r.message in ("joined", "abandoned")
        # within zero_tol of any minimum and falling towards 0: nothing to polish
        done = zero_met(r.f, _first_below(hist, zero), zero)
        polished = bool(polish and not joined and not done)
        if polished:
            r = self._polish(r, ftol, hist, zero=zero)
        x, f, msg, below = r.x, r.f, r.message, np.inf
        r2 = None if joined else self._below_limit(r, ftol)
        if r2 is not None:
            hist += [("below limit", v) for v in r2.history]
            x, f, below = r2.x, self.objective(r2.x)[0], r2.f
            msg = f"{msg}; below the high-frequency limit: {r2.message}"
        checked = not (np.isfinite(f) and self.soft)
        if not checked and verify:
            # The value a run reports is that of hinfnorm, never the inner evaluation's
            # (a lower bound whose level-set test rests on rounding).
            f, checked = max(f, max(t.verified(x) for t in self.soft)), True
        dt = time.perf_counter() - t0
        # The rule is checked again on the verified value, which decides the other starts.
        met = zero_met(f, _first_below(hist, zero), zero)
        state = self._saved_terms(peaks=True)
        return RunRecord(
            start,
            x,
            f,
            hist,
            dt,
            np.isfinite(f),
            msg,
            below,
            r.g,
            zero,
            met,
            polished,
            state,
            checked,
        )

    def _verify_record(self, rec):
        """The check :meth:`run` skipped with ``verify=False``: ``rec.value`` raised to
        every soft term's :meth:`Term.verified` value at ``rec.x``, the ``zero_tol``
        rule decided again on it."""
        if not rec.verified:
            rec.value = max(rec.value, max(t.verified(rec.x) for t in self.soft))
            rec.zero_done = zero_met(
                rec.value, _first_below(rec.history, rec.zero_level), rec.zero_level
            )
            rec.verified = True

    def random_point(self, rng, x0, relative=1.0):
        """A random start: ``x0`` plus a normal perturbation of its scale, inside the bounds."""
        scale = relative * np.maximum(1.0, np.abs(x0))
        x = x0 + scale * rng.standard_normal(x0.size)
        lo, hi = self.params.lower, self.params.upper
        inside = np.clip(x, lo, hi)
        # Keep strictly inside finite bounds (the line search rejects points outside).
        span = np.where(np.isfinite(hi - lo), hi - lo, 1.0)
        return np.where(inside == x, x, np.clip(x, lo + 1e-3 * span, hi - 1e-3 * span))

    def polish_run(self, rec: RunRecord, ftol=1e-7) -> RunRecord:
        """Gradient sampling and BFGS (:meth:`_polish`) where the run ``rec`` stopped.

        For a run made with ``polish=False``; returns it updated (history, value, time,
        ``polished``).  The terms' evaluation state (peak-frequency hints) is first put
        back to where the run stopped (``rec.terms_state``), so that a polish made after
        other runs is the one made at once.  A run already polished, that ended on a
        high-frequency limit (:meth:`_below_limit`) or that met the ``zero_tol`` rule is
        returned as is.  A record made with ``run(verify=False)`` is verified here: at its
        own point when it is returned as is, or when the polished point's verified value
        is above its (inner) value; the polish is kept exactly when it would be with the
        record verified first (its verified value is at least the inner one).
        """
        done = rec.polished or np.isfinite(rec.below_limit) or rec.zero_done
        if done or not rec.feasible:
            if done and rec.feasible:
                self._verify_record(rec)  # zero_done may not survive the verified value
            if rec.polished or not rec.feasible or np.isfinite(rec.below_limit) or rec.zero_done:
                return rec
        t0 = time.perf_counter()
        self._restore_terms(rec.terms_state)
        # The subgradient the run ended with (at a kink a new evaluation may pick another
        # active peak, and gradient sampling would start elsewhere than in run()).
        g = rec.gradient if rec.gradient is not None else self.objective(rec.x)[1]
        r = self._polish(
            BFGSRun(rec.x, rec.value, g, [rec.value], 1, rec.message),
            ftol,
            rec.history,
            zero=rec.zero_level,
        )
        rec.polished = True
        f = max(r.f, max(t.verified(r.x) for t in self.soft)) if np.isfinite(r.f) else r.f
        if not f <= rec.value:
            self._verify_record(rec)
        if f <= rec.value:
            rec.x, rec.value, rec.message, rec.gradient = r.x, f, r.message, r.g
            rec.zero_done = zero_met(f, _first_below(rec.history, rec.zero_level), rec.zero_level)
            rec.verified = True
        rec.time += time.perf_counter() - t0
        return rec

    def _polish_best(self, runs, near, join=0.0):
        """The deferred polish of :meth:`solve` (``polish="deferred"``).

        The unpolished runs, in increasing order of their value: the lowest one always,
        each other only when its value is within ``near`` (relative) of the lowest value
        of the other runs at that point (the polished ones included), each from the
        evaluation state it stopped in (:meth:`polish_run`).  Joined and abandoned runs
        are not polished (as in :meth:`run`); a run left unpolished says so in its
        message.  ``join > 0``: a run whose (verified) value ended within ``[v, v (1 +
        join)]`` of a polished run's ``v`` joins it (message ``"joined"``, no polish),
        the rule its BFGS applies while it runs (:meth:`run`) applied to the value it
        ended with: its inner value can end just below ``v`` (a lower bound of the
        norm) and its verified value just above.
        """
        todo = [
            r
            for r in runs
            if r.feasible
            and not r.polished
            and not r.zero_done
            and r.message not in ("joined", "abandoned")
        ]
        for r in sorted(todo, key=lambda q: q.value):
            best = min((q.value for q in runs if q is not r), default=np.inf)
            final = min((q.value for q in runs if q is not r and q.polished), default=np.inf)
            if join > 0 and final <= r.value <= final * (1 + join):
                r.message = "joined"
                continue
            if r.value > best + near * abs(best):
                r.message += _unpolished(near, best)
                continue
            self.polish_run(r)

    def solve(
        self,
        *,
        random_start=0,
        seed=None,
        progress=False,
        maxiter=1000,
        polish="each",
        near=1e-2,
        join=0.0,
        abandon=np.inf,
        zero_tol=0.0,
    ):
        """Run from the initial values and ``random_start`` random points; best run first.

        ``polish="each"`` polishes every run (:meth:`run`); ``"near"`` polishes a run only
        when its BFGS value is within ``near`` (relative, ``>= 0``; ``inf`` polishes every
        run) of the best run so far (the first run always): gradient sampling gains up to
        a few percent, so a run further behind cannot win by it, and its evaluations (a
        third or more of a run's) are saved.
        Every run that could become the best is polished before the next start is drawn,
        so the starts are those of ``"each"`` until a skipped run would have won.
        ``"deferred"``: the first run is polished at once (as with ``"near"``); every
        random start then runs its BFGS phase only, and once all have run, the
        unpolished runs are polished in increasing order of their value, each only when
        it is within ``near`` of the lowest value of the other runs at that point (the
        lowest run always, :meth:`_polish_best`), each from the evaluation state it
        stopped in, so that it is the polish ``"near"`` would have made.  A random
        start's polish then waits for the starts after it, and a run whose value is by
        then outside the window of a lower (polished) one is not polished at all.  (A
        polish that stops once level with the lowest value was tried: on COMPleib HE4
        and DIS1, seed 2, the run it stopped would have ended below it.)  The random
        starts drawn around the best point may start from an unpolished point, so the
        starts differ from ``"near"``'s after the first random start whose polish would
        have made it the best.  A random start joins (``join``) only the value of a polished run: an
        unpolished value is not final, and a run level with it could still be
        polished below it.  A run left unpolished by ``"near"`` or ``"deferred"`` says
        so in its message.
        ``join > 0``: a run after the first stops, unpolished, as soon as its value is
        level with the best run's so far (within ``[best, best (1 + join)]``,
        :meth:`run`): it has reached a value already found, typically the same optimum
        from another side, where BFGS and the polish would crawl for the last digits.
        It never stops a run below the best value, and the value it records is
        verified like any other.  Both rules are heuristics that can change the result,
        not only the effort: a skipped polish could have gained a few percent (1.7 % on
        COMPleib HE1), and a joined run stops without any stationarity test, possibly on
        its way to a lower optimum.
        ``abandon = m`` (finite, with ``polish="near"`` or ``"deferred"``): a random
        start's BFGS stops, unpolished, once its value minus ``m`` times its gain over
        the last ``ABANDON_WINDOW`` iterations is still above the polish window ``best
        (1 + near)`` (checked every 25 iterations, :meth:`run`): at that pace it would
        not even be polished.  Also a heuristic (a run that speeds up after the check is
        cut); ``inf`` (default) never abandons a run.
        ``zero_tol > 0`` (soft terms never negative, such as H-infinity norms): an
        absolute tolerance, ``zero_tol`` times the objective where the first run's soft
        phase starts (the initial parameters, made stable).  A run stops, unpolished,
        below it once its value has also fallen by ``ZERO_FALL`` from the first value it
        had below it (:func:`zero_met`: a barely stable initial loop puts the level
        above the optimum, and only a value still falling geometrically is taken as
        tending to 0), and once the best run's verified value meets that rule the
        remaining starts are not run (``runs`` then has fewer than ``1 + random_start``
        records): no start can gain more than that tolerance.  ``0`` (default) turns it
        off.
        """
        from .._progress import ProgressBar

        check_solve_options(polish, near, join, abandon, zero_tol)
        rng = np.random.default_rng(seed)
        x0 = self.params.initial()
        runs = []
        with ProgressBar(1 + random_start, "tuning", enabled=progress) as bar:
            for i in range(1 + random_start):
                # Alternate random points around the initial values with perturbations of
                # the best point so far (its own scale: good gains are often far from 1).
                if i == 0:
                    s = x0
                elif i % 2 == 1 and np.isfinite(min(r.value for r in runs)):
                    best = min(runs, key=lambda r: r.value).x
                    s = self.random_point(rng, best, relative=0.5)
                else:
                    s = self.random_point(rng, x0)
                bar.start(f"run {i + 1}")
                top = min((r.value for r in runs), default=np.inf)
                # "deferred": only a polished value is final (a run level with an
                # unpolished one could still have been polished below it)
                final = (
                    min((q.value for q in runs if q.polished), default=np.inf)
                    if polish == "deferred"
                    else top
                )
                level = (final, join) if join > 0 and np.isfinite(final) else None
                window = top + near * abs(top)
                cut = None
                if polish != "each" and np.isfinite(abandon) and np.isfinite(window):
                    cut = (window, float(abandon))
                # The first run fixes the absolute level (its own soft start's value);
                # the others stop at that same level.
                zero = next((q.zero_level for q in runs if np.isfinite(q.zero_level)), None)
                r = self.run(
                    s,
                    maxiter=maxiter,
                    polish=polish == "each",
                    join=level,
                    abandon=cut,
                    zero_tol=zero_tol,
                    zero_level=zero,
                    # the first run of "deferred" is polished next: polish_run verifies
                    verify=not (polish == "deferred" and i == 0),
                )
                joined = r.message in ("joined", "abandoned")
                if polish == "near" and not joined and r.feasible:
                    if r.value > top + near * abs(top):
                        r.message += _unpolished(near, top)
                    else:
                        self.polish_run(r)
                if polish == "deferred" and i == 0 and not joined:
                    self.polish_run(r)
                self._verify_record(r)
                runs.append(r)
                bar.advance(label=f"best {min(r.value for r in runs):.6g}")
                if min(runs, key=lambda q: q.value).zero_done:
                    break  # within the absolute tolerance of any minimum
        if polish == "deferred":
            self._polish_best(runs, near, join)
        order = sorted(range(len(runs)), key=lambda i: (runs[i].value, runs[i].below_limit))
        return runs, order[0]
