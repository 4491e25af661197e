"""Exceptions dpaudit raises for problems a user can fix.

Every error that is the user's to fix (a malformed claim, a pair that is not a pair of
neighbours, a mechanism that returns NaN) derives from :class:`DpauditError`; the command
line prints its message and exits with code 2 instead of showing a traceback.
"""

from __future__ import annotations


class DpauditError(Exception):
    """Base class of the errors dpaudit reports to its user."""


class InvalidClaim(DpauditError, ValueError):
    """A claim's parameters are out of range, or a claim string cannot be parsed."""


class InvalidClaimId(DpauditError, ValueError):
    """A claim id does not follow the ``<suite>/<name>`` grammar."""


class NotNeighbours(DpauditError, ValueError):
    """A pair of inputs is not a pair of neighbours under the stated relation."""


class MechanismError(DpauditError):
    """The audited mechanism misbehaved: it raised, returned the wrong shape, a non-finite
    value, or different outputs for the same random generator state."""


class UnsupportedAudit(DpauditError):
    """No auditor can decide this claim on this subject."""


class SelectionError(DpauditError):
    """A selector matched no claim, or a suite module could not be loaded."""


class AuditTimeout(DpauditError):
    """An audit ran past its time limit."""


class UsageError(DpauditError):
    """The command line or a run's options are inconsistent."""


class UnknownName(DpauditError, KeyError):
    """A name that is not in a registry (:class:`dpaudit.core.names.Registry`); the message lists the known
    names. A ``KeyError``, as a missing dict key always was, whose text is the message itself (a plain
    ``KeyError`` shows the repr of its argument)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
