"""Reading cuts from the source: which global was last assigned through .detach() or no_grad."""

from __future__ import annotations

from sandbox.graph_cuts import CutHint, cut_hints


def test_a_detach_on_the_right_hand_side_is_a_cut_from_the_names_it_reads() -> None:
    hints = cut_hints("cut = (x * 5).detach()\n")
    assert hints == {"cut": CutHint(name="cut", reason="detached", sources=("x",), line=1)}


def test_data_numpy_item_and_torch_detach_count_as_detaching() -> None:
    code = "a = x.data\nb = y.detach().numpy()\nc = torch.tensor(z.item())\nd = torch.detach(w)\n"
    assert {n: h.reason for n, h in cut_hints(code).items()} == dict.fromkeys("abcd", "detached")


def test_an_assignment_inside_no_grad_is_a_no_grad_cut() -> None:
    hints = cut_hints("with torch.no_grad():\n    n = w * 2\n")
    assert hints["n"].reason == "no_grad"
    assert hints["n"].sources == ("w",)


def test_set_grad_enabled_false_and_inference_mode_are_read_too() -> None:
    code = (
        "with torch.set_grad_enabled(False):\n    a = w * 2\n"
        "with torch.inference_mode():\n    b = w * 2\n"
    )
    hints = cut_hints(code)
    assert (hints["a"].reason, hints["b"].reason) == ("no_grad", "inference_mode")


def test_enable_grad_inside_no_grad_records_again() -> None:
    code = "with torch.no_grad():\n    with torch.enable_grad():\n        y = w * 2\n"
    assert cut_hints(code) == {}


def test_a_later_ordinary_assignment_replaces_an_earlier_cut() -> None:
    assert cut_hints("y = x.detach()\ny = x * 3\n") == {}


def test_the_assigned_name_is_not_its_own_source() -> None:
    assert cut_hints("y = y.detach() + x\n")["y"].sources == ("x",)


def test_tuple_assignments_are_read_element_by_element() -> None:
    hints = cut_hints("a, b = x.detach(), x * 2\n")
    assert set(hints) == {"a"}


def test_assignments_inside_functions_are_not_read() -> None:
    assert cut_hints("def f(x):\n    y = x.detach()\n    return y\n") == {}


def test_a_reference_to_detach_without_calling_it_is_not_a_cut() -> None:
    assert cut_hints("f = x.detach\n") == {}


def test_code_that_does_not_parse_gives_no_hints() -> None:
    assert cut_hints("y = (x.detach(\n") == {}
