"""shuffle-glm Remark A.1's per-call entries (audits/shuffle_glm/remark_a1.py): a call the run did not make is
said by name. Deterministic: no false-failure rate to state."""

from __future__ import annotations

import pytest

from dpaudit.audits.shuffle_glm import remark_a1


class Optimizer:
    """Stands for a recorded criterion-II DP-SGD call: only its configuration is read."""

    def dpsgd_config(self, relation):
        return ("config", relation)


def test_a_call_the_run_did_not_make_is_a_clear_error_not_an_index_error(monkeypatch):
    monkeypatch.setattr(remark_a1, "realised_calls",
                        lambda *args: (("first", Optimizer()), ("switch", Optimizer())))
    assert remark_a1.call("table2,S2.5", 4, "released-code", 0, "replace-one") == ("config", "replace-one")
    with pytest.raises(ValueError, match=r"made 1 criterion-II DP-SGD call\(s\); there is no call 2 to audit"):
        remark_a1.call("table2,S2.5", 4, "released-code", 1, "replace-one")
