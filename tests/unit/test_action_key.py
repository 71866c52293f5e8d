"""The key a code action carries in `data`: kinds as an enum, the wire as before."""

from __future__ import annotations

import pytest
from accls.server.offers import OFFERS, ActionKey, ActionKind
from accls.suggest import Dialect, Gpu, SuggestOptions, Target
from pygls.exceptions import JsonRpcInvalidParams

DATA = {
    "uri": "file:///a.c",
    "version": 3,
    "kind": "region",
    "model": "openacc",
    "target": "gpu",
    "loop": 2,
    "kernels": False,
}


def test_the_kinds_on_the_wire() -> None:
    assert [k.value for k in ActionKind] == [
        "loop",
        "model",
        "region",
        "induction",
        "restrict",
        "hoist",
        "lifetime",
    ]


def test_data_round_trips() -> None:
    key = ActionKey.parse(DATA)
    assert key.kind is ActionKind.REGION
    assert key.options == SuggestOptions(Dialect.OPENACC, Target.GPU)
    assert key.data() == DATA


def test_a_listed_key_writes_the_same_data() -> None:
    options = SuggestOptions(Dialect.OPENACC, Target.GPU)
    key = ActionKey.of("file:///a.c", 3, ActionKind.REGION, options, 2)
    assert key.data() == DATA
    assert key == ActionKey.parse(DATA)


def test_the_gpu_travels_only_when_set() -> None:
    options = SuggestOptions(Dialect.OPENMP, Target.GPU, gpu=Gpu.AMD)
    key = ActionKey.of("file:///a.c", 3, ActionKind.LOOP, options, 2)
    assert key.data()["gpu"] == "amd"
    assert ActionKey.parse(key.data()).options == options


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "bogus"}, "not an accls code action: bogus"),
        ({"model": "cuda"}, "not an accls code action: 'cuda' is not a valid Dialect"),
        ({"loop": "x"}, "not an accls code action: invalid literal for int()"),
    ],
)
def test_bad_data_is_invalid_params(change: dict[str, str], message: str) -> None:
    with pytest.raises(JsonRpcInvalidParams) as caught:
        ActionKey.parse({**DATA, **change})
    assert str(caught.value.message).startswith(message)


def test_missing_fields_are_invalid_params() -> None:
    with pytest.raises(JsonRpcInvalidParams):
        ActionKey.parse({"kind": "loop"})
    with pytest.raises(JsonRpcInvalidParams):
        ActionKey.parse(None)


def test_every_kind_has_an_offer_listed_in_order() -> None:
    assert list(OFFERS) == list(ActionKind)
    assert all(offer.kind is kind for kind, offer in OFFERS.items())
