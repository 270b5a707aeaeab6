"""Reading a chat model's reply (invar.tasks.answers): tables of natural
replies per task, each read to its exact value or refused with a reason;
reasoning blocks, explicit final answers, --answer-regex, replies cut at the
token limit; the candidates a reply holds; the shipped prompts and their own
example answers; and random throughputs written among numbers inside words."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from invar.errors import UsageError
from invar.tasks import answers, get_task, task_names
from invar.tasks.answers import PROMPTED, SEGMENT_CHARS, Reader, Unreadable, prompt, read
from invar.tasks.bhive import MAX_CYCLES


@dataclass(frozen=True)
class Refused:
    """A reply that must be refused, with a word its reason holds."""

    word: str


def check(task: str, reply: str, expected, **options) -> None:
    if isinstance(expected, Refused):
        with pytest.raises(Unreadable, match=expected.word) as err:
            read(task, reply, **options)
        assert "\n" not in str(err.value)  # a one-line reason
    else:
        value = read(task, reply, **options).value
        assert value == expected and type(value) is type(expected)


BHIVE = [
    # the brief's misreads: the first number is not the answer
    ("This x86-64 block takes about 1.68 cycles", 1.68),
    ("<think>The block has 7 instructions…</think> 1.68", 1.68),
    ("On Haswell (Intel 4th gen), roughly 1.68", 1.68),
    ("The block has 7 instructions and 3 loads; on x86-64 it takes about 2.5 cycles.", 2.5),
    ("With AVX2 and r10d in play on Haswell-E5, about 3 cycles per iteration.", 3.0),
    ("Python 3.11.2 and llvm-mca 15 say: 1.25 cycles", 1.25),
    # reasoning that mentions other numbers
    ("<think>7 instructions, 3 loads, port 0 and port 1 busy</think>\nAbout 1.68 cycles.", 1.68),
    ("<THINKING>2 loads per iteration</THINKING>\n<reasoning>4 uops</reasoning>\n1.75", 1.75),
    ("the loop has 12 uops, so 3 per port\n</think>\n\n3.00 cycles", 3.0),  # opening tag eaten by the server
    # explicit final answers
    ("The block has 7 instructions. Each load takes 4 cycles.\n\nanswer: 2.25", 2.25),
    ("Port pressure is 1.5 on p0.\n\nFinal answer: **1.68** cycles", 1.68),
    ("**Answer:** 1.68 cycles per iteration\n\nThat is 168 cycles over 100 iterations.", 1.68),
    ("Answer - 4.5\nNote: the division alone takes 20 cycles.", 4.5),
    ("The 3 loads dominate, so $\\boxed{2.5}$ cycles.", 2.5),
    ("First guess \\boxed{3}, corrected: \\boxed{1.5 \\text{ cycles}}", Refused("another answer")),  # two finals differ
    ("First \\boxed{1.5}, so: \\boxed{1.5 \\text{ cycles}}", 1.5),  # ... the same one twice is one answer
    # an answer between XML-like tags: the tags delimit it, their < and > are no bound
    ("<answer>2.5</answer>", 2.5),
    ("The 3 loads dominate.\n<answer>2.5 cycles</answer>", 2.5),
    ("<ANSWER> 1.68 </ANSWER>\nThe 7 instructions issue in 2 groups.", 1.68),
    ("<answer>2.5", Refused("ends inside")),
    ("The answer is <b>2.5 cycles</b>.", 2.5),  # a > that closes a tag is no bound
    ("**Answer:**\n1.68 cycles\n", 1.68),
    # lists and bullets of parts with a final line
    ("- mov: 0.5 cycles\n- add: 0.25 cycles\n- imul: 1 cycle\n\n* **Total: 1.75 cycles per iteration**", 1.75),
    ("1. two loads\n2. one store\n3. So about 2 cycles", 2.0),
    ("Answer: 3. cycles", 3.0),  # after the marker, 3. is the answer, not a list's mark
    # code fences
    ("```\n1.68\n```", 1.68),
    ("Here is the estimate:\n```text\n7 instructions\n1.68 cycles\n```\n", 1.68),
    # units, totals and other measures
    ("168 cycles in total, 1.68 cycles per iteration", 1.68),
    ("100 iterations take 168 cycles, which is 1.68 c/iter", 1.68),
    ("1.68 ± 0.05 cycles", 1.68),
    ("about 1,234.5 cycles", 1234.5),
    ("1.68e2 cycles", 168.0),
    ("IPC: 2.5, so 0.8 cycles", 0.8),
    ("Total Cycles: 168", Refused("only other measures")),
    # ranges
    ("1.5-2 cycles", Refused("range")),
    ("It takes 1.5 to 2 cycles.", Refused("range")),
    ("between 1.5 and 2 cycles", Refused("range")),
    ("about 1.5–2 cycles per iteration", Refused("range")),
    # several different numbers
    ("1.5 cycles, maybe 2 cycles", Refused("two different numbers with a unit of cycles \\(1.5, 2\\)")),
    ("1.68 or 2", Refused("alternatives \\(1.68 or 2\\), not one number")),
    ("1.5 cycles per iteration, or 2 cycles per iteration", Refused("alternatives")),
    # negative, zero, absurd
    ("-1.68 cycles", Refused("positive")),
    ("0 cycles", Refused("positive")),
    ("1e9 cycles", Refused("absurd")),
    ("250000 cycles", Refused("absurd")),
    # nothing to read
    ("I cannot tell.", Refused("no number")),
    ("The x86-64 block runs on Haswell-E5.", Refused("no number")),
    ("", Refused("empty")),
    ("   \n\t\n", Refused("empty")),
    ("<think>7 instructions, so maybe 1.68", Refused("reasoning")),
    ("<think>7 instructions</think>\n   ", Refused("reasoning")),
    ("Answer: it depends on the cache", Refused("no number")),  # the explicit answer decides
    ("the total is 1.68\n\\boxed{1.", Refused("boxed")),
    # one number is not what these say: refused, never read as one of their numbers
    ("Answer: 3,5 cycles", Refused("decimal comma")),
    ("Answer: 0,25 cycles", Refused("decimal comma")),
    ("Answer: 2 or 3 cycles", Refused("alternatives")),
    ("Answer: 2 cycles (or 3 on Skylake)", Refused("alternatives")),
    ("Answer: 3/2 cycles", Refused("fraction")),
    ("Answer: 1 1/2 cycles", Refused("fraction")),
    ("Answer: < 1 cycle", Refused("a bound")),
    ("Answer: at least 3 cycles", Refused("a bound")),
    # after the marker a > is a bound, not a markdown quote: a quote opens a line only, before any marker
    ("Answer: > 3 cycles", Refused("a bound")),
    ("Answer: >= 3 cycles", Refused("a bound")),
    ("Answer: ≥ 3 cycles", Refused("a bound")),
    ("Answer: ≤ 3 cycles", Refused("a bound")),
    ("Answer: **> 3** cycles", Refused("a bound")),
    ("\\boxed{> 3}", Refused("a bound")),
    ("> Answer: 3 cycles", 3.0),
    ("The 3 loads dominate.\n\n> 3 cycles", 3.0),
    ("Answer: 3 cycles -> 3 cycles per iteration", 3.0),  # an arrow is no bound
    # a bound written after the number
    ("Answer: 3 cycles at most", Refused("a bound")),
    ("Answer: 3 cycles or fewer", Refused("a bound")),
    ("Answer: 3 cycles or less", Refused("a bound")),
    ("Answer: 3 cycles or more", Refused("a bound")),
    ("Answer: 3 cycles per iteration, at least", Refused("a bound")),
    ("Answer: 3 cycles minimum", Refused("a bound")),
    ("Answer: 3 cycles (maximum)", Refused("a bound")),
    ("Answer: 3 cycles at best", Refused("a bound")),
    ("Answer: 3+ cycles", Refused("a bound")),
    ("Answer: 3 cycles or so", 3.0),  # an approximation, no bound
    ("Answer: 2 cycles (max port pressure on p1)", 2.0),  # a word of bounds that does not close the clause
    # a number denied is never the answer
    ("Answer: not 3 cycles but 2.5", Refused("negated")),
    ("Answer: 2.5 cycles, not 3", Refused("negated")),
    ("Answer: 2.5 cycles rather than 3", Refused("negated")),
    ("Answer: 2.5 cycles (not counting the 3 loads)", 2.5),  # a count denied is no number of cycles
    # a time or a frequency is no count of cycles
    ("Answer: 2.5 ns", Refused("only other measures")),
    ("Answer: 2.5 ms", Refused("only other measures")),
    ("Answer: 2.5 us", Refused("only other measures")),
    ("Answer: 2.5 µs", Refused("only other measures")),
    ("Answer: 2.5 seconds per iteration", Refused("only other measures")),
    ("Answer: 2.5 cycles on a 3.5 GHz Haswell", 2.5),
    ("Answer: 200 cycles for 100 iterations", Refused("only other measures")),
    ("Answer: 4 cycles / 2 iterations", Refused("only other measures")),
    ("Answer: 2 cycles per 2 iterations", Refused("only other measures")),
    ("Answer: 0.5 cycles per instruction", Refused("only other measures")),
    ("Answer: CPI = 2.5", Refused("only other measures")),
    ("It takes 7 instructions and 3 loads.", Refused("only other measures")),
    # prose on the last line, with no final answer: a number inside it that answers nothing
    ("I'm sorry, I cannot run llvm-mca 17 here, so I can't give an estimate.", Refused("no number of cycles")),
    ("For that, see section 2 of Intel's optimization manual.", Refused("no number of cycles")),
    # a final answer, then another one: a correction, or an echo of the prompt's example before the real one
    ("Answer: 3.5 cycles\n\nWait, I double-counted the loads: it is 4.5 cycles.", Refused("another answer")),
    ("Answer: 2.25 cycles\nMy estimate is roughly 24 cycles per iteration.", Refused("another answer")),
    # ... but a note on a part, a latency or the same value again is no other answer
    ("Answer: 2 cycles\nThe two loads take 5 cycles of latency each.", 2.0),
    ("Answer: 2 cycles per iteration\n(2 cycles per iteration on Haswell)", 2.0),
    ("Answer: 1.75 cycles\n\n- imul alone: 1 cycle", 1.75),
    # numbers listed or side by side, a bound after one, a tilde range: no one number
    ("Answer: 1 234 cycles", Refused("numbers listed")),
    ("Answer: 4.5, 7 cycles", Refused("numbers listed")),
    ("Answer: 2 . 5 cycles", Refused("numbers listed")),
    ("Answer: 2'500 cycles", Refused("numbers listed")),
    ("Answer: 3*2 cycles", Refused("in an expression")),
    ("Answer: 3 x 2 cycles", Refused("in an expression")),
    ("Answer: 3·2 cycles", Refused("in an expression")),
    ("Answer: 3 × 2 cycles", Refused("in an expression")),
    ("Answer: 3+1 cycles", Refused("in an expression")),
    ("Answer: 3 cycles plus 1 for the load", Refused("an expression")),
    ("Answer: 2 times 3 cycles", Refused("an expression")),
    ("Answer: 2 sets of 3 cycles", Refused("an expression")),
    ("Answer: 2.5 ns/iteration", Refused("only other measures")),
    ("Answer: 1,234 cycles", 1234.0),  # a thousands separator: one number
    ("Answer: 3 x86 cycles", 3.0),  # digits inside a word are no number
    ("Answer: 100+ cycles", Refused("a bound")),
    ("Answer: 12~14 cycles", Refused("range")),
    ("Answer: 12 ~ 14 cycles", Refused("range")),
    # a second number offered as a maybe beside the one with a unit
    ("Answer: about 12 cycles, maybe 13", Refused("alternatives")),
    ("Answer: 12 cycles, though 13 is also plausible", Refused("alternatives")),
    ("Answer: 12 cycles (13 if the load misses L1)", 12.0),  # a condition, no maybe: the answer stands
    # a second value for another case or another machine: alternatives
    ("Answer: 3 cycles best case, 5 worst case", Refused("alternatives")),
    ("Answer: best case 3 cycles, worst case 5", Refused("alternatives")),
    ("Answer: 3 cycles on Haswell, 4 on Skylake", Refused("alternatives")),
    ("Answer: 3 cycles in the best case and 5 in the worst", Refused("alternatives")),
    ("Answer: 12 cycles, 13 if the load misses L1", Refused("alternatives")),
    ("Answer: 3 cycles on Haswell, with 4 loads", 3.0),  # a count for the case is no second value
    ("Answer: 2 cycles (2 on Skylake too)", 2.0),  # the same value for both
    # second thoughts after the final answer, however they open
    ("Answer: 12 cycles\n\nOn second thought, 14 cycles.", Refused("another answer")),
    ("Answer: 3 cycles\nUpdate: it's 4 cycles", Refused("another answer")),
    ("Answer: 3 cycles\nEdit: 4 cycles", Refused("another answer")),
    ("Answer: 3 cycles\nFinal: 4 cycles", Refused("another answer")),
    ("Answer: 3 cycles\nLet me recompute: 4 cycles.", Refused("another answer")),
    ("Answer: 3 cycles\nI think it's 4 cycles.", Refused("another answer")),
    ("Answer: 3 cycles\nBut 4 cycles is more likely.", Refused("another answer")),
    ("Answer: 3 cycles\nWait, 4.", Refused("another answer")),
    ("Answer: 3 cycles\nHmmm, about 4", Refused("another answer")),
    # ... and where they give no other number of cycles, or the same one, the answer stands
    ("Answer: 3 cycles\nUpdate: it's 3 cycles", 3.0),
    ("Answer: 3 cycles\nI think the 2 loads dominate.", 3.0),
    ("Answer: 3 cycles\nBut the division alone takes 20 cycles.", 3.0),
    ("Answer: 1.68 cycles\nEdit: fixed a typo.", 1.68),
    ("Answer: 2 cycles\n\nIn fact, the 2 multiplies share port 1.", 2.0),
    # two explicit final answers that differ: an echo of the prompt's example, then the model's own figure
    ("Answer: 2.25 cycles\nLet me compute.\nAnswer: 3 cycles", Refused("another answer")),
    ("Answer: 3 cycles\n\\boxed{4}", Refused("another answer")),
    ("Answer: 3 cycles\n…\nAnswer: 3 cycles per iteration", 3.0),  # the same answer twice
    ("Answer: N cycles\n…\nAnswer: 3 cycles", 3.0),  # an echoed template gives no answer
    # a part measured alone is no answer for the block
    ("The throughput is 24 cycles per iteration.\n\nNote: the division alone takes 20 cycles.", Refused("only other")),
    # a heading that is only the word: the line after it is the answer
    ("## Final Answer\n\n12 cycles per iteration\n\nThe 3 loads are not the bottleneck.", 12.0),
    ("**Answer**\n2.5 cycles\n\n- the 3 loads: 1.5 cycles", 2.5),
    # the reply's last line, after the final answer, gives another answer alone: an echoed format line first, the
    # model's own figure last; a heading read for a line of explanation; the same figure last is the answer
    (
        "I need to end with a line of this form:\nAnswer: 2.25 cycles\n\nThe imul chain dominates.\n\n**3 cycles**",
        Refused("last line gives another"),
    ),
    ("Format:\nAnswer: 2.25 cycles\n\nThe imul chain dominates.\n\nSo it takes 3 cycles.", Refused("last line")),
    ("Format:\nAnswer: 2.25 cycles\n\nThe imul chain dominates.\n\nResult: ≈ 3 cycles", Refused("last line")),
    ("Answer: 3 cycles\n\nThe imul chain dominates.\n\n**3 cycles**", 3.0),
    ("Answer: 3 cycles\n\nThe imul chain dominates; the add takes 1 cycle.", 3.0),
    ("## Answer\n\n1 cycle for the add.\n\n3 cycles total per iteration.", Refused("last line gives another")),
    ("## Answer\n\nThe chain costs 1 cycle.\n\nWith 3 adds that is 3 cycles.", Refused("explanation")),
    ("## Answer\n\nThe chain is 1 cycle per add.\n\nWith 3 adds that is 3 cycles.", Refused("only other measures")),
    ("## Answer\n\nThe throughput is about 3 cycles.\n\nWith 3 adds that is 3 cycles.", 3.0),
    # a correction or an alternative inside the answer's line, after "per iteration" too
    ("Answer: 2.25 cycles per iteration (actually 3)", Refused("second thoughts inside")),
    ("Answer: 2.25 cycles per iteration — wait, 3", Refused("second thoughts inside")),
    ("Answer: 2.25 cycles/iter, correction: 3", Refused("second thoughts inside")),
    ("Answer: 2.25 cycles per iteration (or 3 on Skylake)", Refused("alternatives")),
    ("Answer: 2.25 cycles per iteration or 3", Refused("alternatives")),
    ("Answer: 2.25 cycles per iteration (actually limited by port 1)", 2.25),
    ("Answer: 2.25 cycles per iteration (on Skylake too)", 2.25),
    # weak openers (I think, But, Finally, In fact) give another answer only for the whole block, not a part
    ("Answer: 2.25 cycles\n\nBut the add takes only 1 cycle.", 2.25),
    ("Answer: 2.25 cycles\n\nI think the store takes 1 cycle too.", 2.25),
    ("Answer: 2.25 cycles\n\nFinally, the add takes 1 cycle.", 2.25),
    ("Answer: 2.25 cycles\n\nIn fact, it takes 3 cycles.", Refused("another answer")),
    ("Answer: 2.25 cycles\n\nI think 3 cycles.", Refused("another answer")),
    # a derivation in parentheses that gives the value before it is a note; one that does not is refused
    ("Answer: 5 cycles (4 + 1)", 5.0),
    ("Answer: 6 cycles (2 × 3)", 6.0),
    ("Answer: 2.25 cycles (= 9/4)", 2.25),
    ("Answer: 5 cycles (4 + 2)", Refused("expression")),
    ("Answer: 5 (4 + 1)", Refused("expression")),
    ("Answer: 5 cycles (4 + " + "9" * 400 + ")", Refused("expression")),  # past a float: no value, not an error
    ("Answer: 5 cycles (5 / 0)", Refused("a fraction")),
    # per-instruction units and other rates are no cycles per iteration: CPI, IPC, cycles per anything else
    ("2.25 CPI", Refused("only other measures")),
    ("Answer: 2.25 CPI", Refused("only other measures")),
    ("Answer: 2.25 (CPI)", Refused("only other measures")),
    ("Answer: 2.25 cycles (CPI)", Refused("only other measures")),
    ("Answer: 2.5 IPC", Refused("only other measures")),
    ("Answer: 2.5 instr/cycle", Refused("only other measures")),
    ("Answer: 2.25 cycles/instr", Refused("only other measures")),
    ("Answer: 2.25 cyc/insn", Refused("only other measures")),
    ("Answer: 2.25 clocks per instruction", Refused("only other measures")),
    ("Answer: 2.25 cycles per uop", Refused("only other measures")),
    ("The block's CPI is about 0.75.", Refused("only other measures")),
    ("Answer: 3 cycles per load", Refused("only other measures")),
    ("Answer: 3 cycles per byte", Refused("only other measures")),
    ("Answer: 3 cpb", Refused("only other measures")),
    ("Answer: 2.25 cycles per 4 instructions", Refused("only other measures")),
    ("Answer: 2.25 cycles for 4 loads", Refused("only other measures")),
    ("Answer: 1 cycle each", Refused("only other measures")),
    # ... near misses: cycles per iteration beside a CPI or IPC note; an iteration, a loop, a block in other words
    ("Answer: 2.5 cycles per iteration (0.5 CPI)", 2.5),
    ("Answer: 0.5 CPI (2.5 cycles per iteration)", 2.5),
    ("Answer: 2.5 cycles (IPC 1.6)", 2.5),
    ("Answer: 3 clocks", 3.0),
    ("Answer: 3 cycles per loop", 3.0),
    ("Answer: 2.25 cycles per basic block", 2.25),
    ("Answer: 2.25 cycles per steady-state iteration", 2.25),
    ("Answer: 2.25 cycles per execution", 2.25),
    ("Answer: 2.25 cycles\n\nThat is 0.56 CPI.", 2.25),
    # a correction after the answer that gives its number in other words
    ("Answer: 2.5 cycles\nActually, the throughput should be 3 per iteration.", Refused("another answer")),
    ("Answer: 2.5 cycles\nActually, I get 3.", Refused("another answer")),
    ("Answer: 2.5 cycles\nActually, it should be closer to 3.", Refused("another answer")),
    ("Answer: 2.5 cycles\nActually, I get 2.5.", 2.5),
    ("Answer: 2.5 cycles\n\nActually, the 2 loads take 1 cycle each.", 2.5),
    ("Answer: 2.5 cycles\n\nActually, port 0 is used 2 times per iteration.", 2.5),
    # LaTeX math around the answer
    ("Answer: $2.25$ cycles", 2.25),
    ("Answer: $$2.25$$", 2.25),
    # a retraction after the final answer, and a figure that ends a line of strong second thoughts
    ("Answer: 2 cycles\n\nWait, that's wrong — I ignored the imul latency.", Refused("retracts")),
    (
        "Answer: 2 cycles\n\nHmm, actually I made a mistake above; the loop-carried chain dominates.",
        Refused("retracts"),
    ),
    ("Answer: 1.25 cycles\n\nOops, I miscounted: there are 6 uops.", Refused("retracts")),
    ("Answer: 2 cycles\n\nActually, recounting gives 9 uops → 2.25.", Refused("another answer")),
    ("Answer: 2 cycles\n\nWait, the chain is imul (3) + add (1) = 4.", Refused("another answer")),
    ("Answer: 2 cycles\n\nActually no — the correct throughput is 3.", Refused("another answer")),
    ("Answer: 2 cycles\n\nI made a mistake earlier but the answer stands.", 2.0),
    ("**Answer: 2.5 cycles**", 2.5),
    # the head of weak second thoughts after a spaced hyphen, before a note on it
    ("Answer: 2.0 cycles\n\nThroughput: 2.0 - actually 2.5 once the store is counted.", Refused("another answer")),
    ("Answer: 1.0\n\nPort 1 gets 2 uops - actually 3 if the lea is counted, but port 5 absorbs one.", 1.0),  # a detail
]

BUGS = [
    ("0.9 (likely buggy)", Refused("neither 0 nor 1")),
    ("50% chance of a bug", Refused("neither 0 nor 1")),
    ("Not buggy.", 0),
    ("No bug.", 0),
    ("No, it is correct.", 0),
    ("Yes, it has a bug.", 1),
    ("1", 1),
    ("0", 0),
    ("**Answer:** 1", 1),
    ("The loop looks off at first.\n\nFinal answer: 0", 0),
    ("Answer: 1 (a variable misuse on line 3)", 1),
    ("The function is bug-free.", 0),
    ("It is not correct: the loop compares with <= instead of <.", 1),
    ("The function doesn't contain any bugs.", 0),
    ("There is no obvious bug, so: correct", 0),
    ("Verdict: buggy", 1),
    ("Bug: 0", 0),  # a label before a colon is the question
    ("Buggy: no", 0),
    ("Has a bug: yes", 1),
    ("Buggy: the loop reads j where i was meant", 1),  # unless what follows gives no verdict
    ("Correct: no bugs found", 0),
    ("\\boxed{1}", 1),
    ("True", 1),
    ("false", 0),
    ("<think>line 3 reads i where j was meant? no, j is right</think>\nAnswer: 0", 0),
    ("No, it has a bug", Refused("conflicting")),
    ("It returns True when x < y", Refused("no verdict")),
    ("I cannot tell.", Refused("no verdict")),
    # a question and its answer, a count of bugs, inline code; alternatives and padded digits refused
    ("Answer: The code is buggy? No.", 0),
    ("Is there a bug? Yes: line 3 reads i.", 1),
    ("Answer: Buggy?", Refused("a question")),
    ("Answer: 0 bugs", 0),
    ("Answer: 1 bug", 1),
    ("Answer: 2 bugs", 1),
    ("Answer: `0`", 0),
    ("Answer: **`1`**", 1),
    ("Answer: 0 or 1", Refused("two verdicts")),
    ("Answer: 1/0", Refused("two verdicts")),
    ("Answer: 01", Refused("neither 0 nor 1")),
    ("Answer: 0\n\nWait: line 4 compares with <=, so it is buggy.", Refused("another answer")),
    ("Answer: 1\nThe comparison on line 4 is incorrect.", 1),
    # a number right after the marker is the answer, not a numbered list's mark
    ("Answer: 1. The comparison is swapped.", 1),
    ("Answer: 1. Otherwise the function is correct.", 1),  # ``otherwise`` limits the ``correct`` to the rest
    ("Answer:\n1. No bug.", 0),  # on a line of its own, 1. is a list's mark
    # second thoughts after the final answer give another verdict
    ("Answer: 0\nActually, 1.", Refused("another answer")),
    ("Answer: 0\nSo 1.", Refused("another answer")),
    ("Answer: 0\nWait, actually the answer is 1.", Refused("another answer")),
    ("Answer: 0\nActually, line 1 is fine.", 0),
    ("Answer: 1\nSo it has a bug on line 0.", 1),
    # a negation that reaches the verdict word through a verb (``I don't see any bug``)
    ("I don't see any bug.", 0),
    ("I could not find a bug.", 0),
    ("I don't think there is a bug.", 0),
    ("The function is free of bugs.", 0),
    ("I don't think the function is correct.", 1),
    ("Nothing is buggy here; the function is correct.", 0),
    # two verdicts offered, an in-line correction, an unsure answer
    ("Answer: 0, but it could also be 1", Refused("conflicting")),
    ("Answer: yes or no", Refused("conflicting")),
    ("Answer: either 1 or 0", Refused("conflicting")),
    ("Answer: 1 — wait, no, 0", Refused("conflicting")),
    ("Answer: Yes, 0", Refused("conflicting")),
    ("Answer: 1 (bug on line 0)", 1),  # a 0 after a plain word is no verdict
    ("Answer: I can't tell if the code is buggy", Refused("unsure")),
    ("Answer: 0\nOn second thought, 1.", Refused("another answer")),
    # the words that open second thoughts are one list, shared with the other tasks
    ("Answer: 0\nUpdate: 1.", Refused("another answer")),
    ("Answer: 0\nI think 1.", Refused("another answer")),
    ("Answer: 0\nBut 1.", Refused("another answer")),
    ("Answer: 0\nLet me recompute: 1", Refused("another answer")),
    ("Answer: 0\nUpdate: the loop is fine.", 0),
    ("Answer: 0, but 1 call is slow", 0),  # a ``but`` inside the line joins a note
    # two explicit final answers that differ
    ("Answer: 1\n\nAnswer: 0", Refused("another answer")),
    ("Answer: 1\n\nFinal answer: 1", 1),
    # a double negation is refused, never read one way
    ("Answer: not not buggy", Refused("double negation")),
    ("Answer: not free of bugs", Refused("double negation")),
    ("I don't think it's not correct.", Refused("double negation")),
    ("Answer: No, not buggy", 0),  # a negation after a pause is no double one
    ("Answer: not buggy", 0),
    # a verdict limited by a contrast, an exception, a scope, a part or a modal is no verdict on the function:
    # the contrast's own verdict is read where it gives one, else the reply is refused
    ("The function looks correct, but the comparison on line 3 is swapped.", Refused("limited by 'but'")),
    ("The function looks correct except for the off-by-one in the loop bound.", Refused("limited by 'except'")),
    ("Everything is correct apart from line 4, which reads `j` instead of `i`.", Refused("limited by 'apart'")),
    ("The logic is correct; however, the comparison uses <= where < is needed.", Refused("limited by 'however'")),
    ("Correct, except that line 3 should use `<` instead of `<=`.", Refused("limited")),
    ("Apart from line 4, the function is correct.", Refused("limited")),
    ("Although the function looks correct, the comparison is swapped.", Refused("limited by 'although'")),
    ("Answer: The function is correct except for the swapped comparison on line 3.", Refused("limited")),
    ("The loop itself is correct.", Refused("limited by 'loop'")),
    ("Line 2 is correct.", Refused("limited by 'line'")),
    ("Everything else looks correct.", Refused("limited by 'else'")),
    ("The rest of the function is correct.", Refused("limited by 'rest'")),
    ("The comparison should be `<=`; otherwise it is correct.", Refused("limited by 'otherwise'")),
    ("The function is mostly correct.", Refused("limited by 'mostly'")),
    ("The function is correct for positive inputs.", Refused("limited by 'for'")),
    ("The function is correct at first glance.", Refused("limited by 'at'")),
    ("There is no bug in the loop.", Refused("limited by 'in'")),
    ("The function would be correct if line 3 used `<`.", Refused("limited by 'would'")),
    ("If n were negative, this would be a bug.", Refused("limited by 'would'")),
    ("No, except that line 3 compares with <= instead of <.", Refused("limited by 'except'")),
    ("The syntax is correct, but the logic has a bug.", 1),  # the contrast's own verdict
    ("The function appears correct at first glance, but line 5 uses `a` for `b`, so it is buggy.", 1),
    ("The comparison is swapped, so the answer is 1.", 1),
    # ... near misses: a verdict on the whole function, a contrast before it, a contrast that is a note on style
    ("The code looks suspicious at first, but it is correct.", 0),
    ("Although the loop looks odd, the function is correct.", 0),
    ("The function is correct for all inputs.", 0),
    ("There is no bug in the code.", 0),
    ("There are no bugs at all.", 0),
    ("In my opinion, the function is correct.", 0),
    ("The function is correct as written.", 0),
    ("I checked each line and found no bug.", 0),
    ("The code is correct, but it could be more efficient.", 0),
    ("The function is correct, but the variable names could be clearer.", 0),
    ("The function has no bugs, but the docstring is outdated.", 0),
    ("The function is correct, but the variable names on line 3 are swapped.", Refused("limited by 'but'")),
    ("The function is correct when n is positive, which the caller ensures.", Refused("limited by 'when'")),
    # a negation that reaches its verdict word through more words (``here``, ``in this``, ``hold``)
    ("Nothing here is buggy.", 0),
    ("Nothing in this function is buggy.", 0),
    ("No, the function doesn't hold a bug.", 0),
    ("Answer: 0 (correct, though the naming is odd)", 0),  # an opening verdict is limited by an exception only
    # after the answer: a verdict on a part, on the rest, or a hypothetical is no other verdict
    ("Answer: 1\nThe rest of the function is correct.", 1),
    ("Answer: 1\n\nExplanation: The loop is correct, but the comparison on line 3 is swapped.", 1),
    ("Answer: 1 (the loop should be `i < n`, which would make it correct)", 1),
    ("Answer: 1\n\nNo other bugs.", 1),
    ("Answer: 1\n\nNo other issues.", 1),
    ("Answer: 0\n\nNote: if `n` could be negative, this would be a bug.", 0),
    # a negated degree denies a verdict of 0; before one of 1 it says neither; an unsure negation
    ("The function is not entirely correct.", 1),
    ("The function is not always correct.", 1),
    ("It is not 100% bug-free.", 1),
    ("It's not always buggy.", Refused("negated degree")),
    ("It's not necessarily buggy.", Refused("unsure")),
    ("The function looks fine.", 0),
    ("Answer: 1\nOn reflection the code is fine.", Refused("another answer")),
    # a correction after the answer that gives no bare verdict: refused, as every other answer after it
    ("Answer: 0\nActually, the comparison is wrong, so the answer is 1.", Refused("another answer")),
    ("Answer: 0\n\nOn second thought, the comparison is wrong, so 1.", Refused("another answer")),
    ("Answer: 0\n\nHmm, on reflection `<` should be `<=`. Answer: 1", Refused("another answer")),
    ("Answer: 1\n\nWait, no, the code is fine: 0.", Refused("another answer")),
    ("Answer: 0\n\nUpdate: found it: `total` should be `count`.", Refused("another answer")),
    ("Answer: 0\n\nActually, the comparison is swapped.", Refused("another answer")),
    ("Answer: 0\n\nWait, line 3 uses `j` instead of `i`.", Refused("another answer")),
    ("Answer: 1\n\nThe loop is fine, but the comparison is swapped.", 1),
    ("Answer: 1\nActually, the comparison is wrong, so the answer is 1.", 1),  # the same verdict restated
    ("Answer: 1\n\nUpdate: found it: `total` should be `count`.", 1),
    ("Answer: 0\n\nActually, is the comparison swapped? No.", 0),
    # a JSON object, a table's row, a label denied, identifiers and code, LaTeX math
    ('{"answer": 1}', 1),
    ('```json\n{"answer": 0}\n```', 0),
    ('{"buggy": false}', 0),
    ('{"has_bug": true, "line": 3}', 1),
    ('{"correct": false}', 1),
    ('{"is_correct": true}', 0),
    ("{'bugs': []}", 0),
    ('{"answer": 0, "buggy": true}', Refused("conflicting")),
    ('{"explanation": "the loop is fine"}', Refused("no verdict among its keys")),
    ("| Buggy | No |", 0),
    ("| Verdict | 1 |", 1),
    ("| Buggy | No | line 3 |", Refused("table")),
    ("Bugs: none", 0),
    ("Bug found: None", 0),
    ("Answer: 0 (the variable `bug_count` is used correctly)", 0),
    ("Answer: 0 (the variable bug_count is used correctly)", 0),
    ("Answer: 1\n\nThe fix:\n```python\ndef f(a, b):\n    return is_correct(a)\n```", 1),
    ("Answer: $1$", 1),
    ("Answer: \\(0\\)", 0),
    # a later contrast limits a verdict of 0; its 1 is read only as a plain assertion about this code, after it in
    # its own sentence: a hypothetical, an appearance, a condition, a generic mention, a belief or a place outside the
    # function is refused (the reply reads two ways), and a concession of how the code looks limits nothing
    ("The function has no bug, but a bug would occur if n were negative.", Refused("no plain verdict")),
    ("It's correct, but the `<=` looks like a bug at first.", Refused("no plain verdict")),
    ("Correct — but a bug would appear if the list were empty.", Refused("no plain verdict")),
    ("Answer: The function is correct, but if it were buggy, the `<` would be `<=`.", Refused("no plain verdict")),
    ("No bug. However, a common bug in such code is an off-by-one error.", Refused("no plain verdict")),
    ("Correct. Note, however, that swapping `<` for `<=` would introduce a bug.", Refused("no plain verdict")),
    ("The code is correct. I initially suspected a bug on line 3, but it turned out to be intended.", Refused("plain")),
    (
        "The function is correct. A typical injected bug would swap `<` and `<=`, but that didn't happen.",
        Refused("plain"),
    ),
    ("Answer: Correct, but beware: passing a negative `n` is a bug in the caller, not here.", Refused("limited")),
    ("Answer: The function is fine. Yet another reviewer might flag line 3 as a bug.", Refused("conflicting")),
    ("The function is correct, although at first glance the `<=` looks like a bug.", 0),
    ("It's bug-free, although at first I thought line 3 was buggy.", 0),
    ("Answer: Correct — although the `<=` resembles a common off-by-one bug.", 0),
    ("Answer: not buggy, though a careless reader might think it's buggy", 0),
    ("No bug: the `<=` is intentional, though it looks like an off-by-one bug at first glance.", 0),
    ("Although it looks like a bug, the `<=` is intended, so the function is correct.", 0),
    # ... near misses: a plain bug after the contrast, a concession that describes one, a bug in the main clause
    ("It looks correct, but there's a bug on line 3.", 1),
    ("The function is correct. However, line 3 has a bug.", 1),
    ("Correct, but it has an off-by-one bug on line 4.", 1),
    ("Though it looks correct at first glance, the function is buggy.", 1),
    ("It's buggy, though it looks correct at first glance.", 1),
    ("The function is correct, though line 3 compares with `<` where `<=` is needed.", Refused("limited")),
    ("It looks correct, though it looks like there's a bug on line 3.", Refused("no plain verdict")),
    ("It's correct, although I think line 3 is buggy.", Refused("plain")),
    # "the answer is N" in a trace's sentence is no verdict
    ("For n = 1 the answer is 1.", Refused("no verdict")),
    ("So for an empty list the answer is 0.", Refused("no verdict")),
    ("The loop is fine. The answer is 1.", 1),
    ("So the answer is 1.", 1),
    # the whole function after a scope, every part, ``this case``, the algorithm
    ("Answer: No bug in find_max.", 0),
    ("I found no bugs in the provided function.", 0),
    ("There is no bug in the given code.", 0),
    ("There is no bug in this Java method.", 0),
    ("No bugs in findMax().", 0),
    ("Every comparison and variable read is correct.", 0),
    ("All comparisons and variable uses are correct.", 0),
    ("In this case the function is correct.", 0),
    ("The algorithm is correct.", 0),
    ("No bug in the loop body.", Refused("limited")),
    ("Every line but line 3 is correct.", Refused("limited")),
    ("All lines except line 3 are correct.", Refused("limited")),
    # an index's minus is no pause before a verdict
    ("Answer: 0\n\nSo the last index checked is n-1.", 0),
    ("Answer: 0\n\nSo the loop covers indices 0..n-1", 0),
    ("Answer: 0\n\nSo the last index is n - 1.", 0),
    # a yes or no answers the question or label it follows, in that one's sense
    ("**Is the function correct?** Yes.", 0),
    ("**Is the function correct?** No.", 1),
    ("Is the function correct? No — it returns the wrong variable.", 1),
    ("Does it work correctly? No.", 1),
    ("Does it work as intended? Yes.", 0),
    ("Correct: No", 1),
    ("Correct: Yes", 0),
    ("Is correct: false", 1),
    ("Bug-free: no", 1),
    ("| Correct | No |", 1),
    ("| Correct? | Yes |", 0),
    ("Correct: ❌", 1),
    ("Bug: ❌", 0),
    ("Answer: Correct? No.", 1),
    ("Q: Is the function correct?\nA: No.", 1),
    ("Q: Does this function contain a bug?\nA: No.", 0),
    ("Is the function correct?\n\nNo.", 1),
    ("Is there a bug? No.", 0),
    ("Contains an injected bug: no", 0),
    ("Does it have a bug: no", 0),
    ("Verdict: no", 0),
    ("Variable misuse: yes", 1),
    ("Is the function correct?\n\nAnswer: No.", 0),  # an explicit answer answers the prompt's question
    ("Does it handle empty lists? No.", Refused("unknown sense")),
    ("Does the loop terminate?\n\nYes.", Refused("unknown sense")),
    ("Is the loop correct? Yes.", Refused("unknown sense")),
    ("Is it not buggy? No.", Refused("unknown sense")),
    ("Swapped comparison: no", Refused("one kind")),
    ("Any other bugs? No", Refused("one kind")),  # a no to other bugs says nothing of the one found
    ("Any other bugs? Yes", 1),
    ("The comparison on line 3 is swapped.\nIs there a bug elsewhere? No.", Refused("one kind")),
    ("Is the function correct? Yes and no.", Refused("unsure")),  # both at once is no verdict
    ("Answer: yes and no", Refused("unsure")),
    ("The comparison on line 3 is swapped.\nBesides that, is there a bug? No.", Refused("one kind")),
    ("`i <= n` should be `i < n`.\nApart from this, any bugs? No.", Refused("one kind")),
    ("The comparison on line 3 is swapped.\nIs there a second bug? No.", Refused("one kind")),
    ("Is the rest correct? Yes", Refused("unknown sense")),
    # a question about a bug it names as given asks of that bug, not whether there is one
    ("Is the bug a swapped comparison? No, a variable misuse.", Refused("unknown sense")),
    ("Does the bug crash the program? Yes.", Refused("unknown sense")),
    ("Is the injected bug on line 3? No.", Refused("unknown sense")),
    ("Does this issue matter? No.", Refused("unknown sense")),
    ("Is this an error? Yes.", 1),  # ... not one asked of as a bug
    ("Is that really a bug? No.", 0),
    ("The bug: none", 0),  # ... nor a label
    ("Does the function hold the injected bug? No.", 0),  # ... nor one that asks whether it is there
    ("**Does the function hold the injected bug?** Yes.", 1),
    ("Is the bug present? No.", 0),
    ("Are these bugs? No.", 0),  # a pronoun, not a bug named
    ("Answer: 0\n\nIs the bug present? Yes.", Refused("another answer \\(1\\)")),
    ("✅ Correct", 0),
    # a bug denied after a label that asks for one, a count of none, a JSON value that describes one
    ("Bug: None found", 0),
    ("Bugs: none found.", 0),
    ("Bugs detected: none identified", 0),
    ("Bug: not found", 0),
    ("Bug: N/A", 0),
    ("Injected bug: absent", 0),
    ("Issues: none", 0),
    ("Correct: none", Refused("no verdict")),
    ("Verdict: none", Refused("no verdict")),
    ("The function has 0 injected bugs.", 0),
    ("Line 0 has a bug.", 1),
    ('{"bug": "variable misuse on line 5"}', 1),
    ('{"bug": "none"}', 0),
    ("=> 1", 1),
    ("→ 0", 0),
    ("Answer: definitely 1", 1),
    # a retraction after the final answer that gives no verdict
    ("Answer: 1\n\nWait, I was wrong.", Refused("retracts")),
    ("Answer: 1\n\nHmm, no.", Refused("retracts")),
    ("Answer: 0\n\nActually, I missed something: the loop should start at 1.", Refused("retracts")),
    ("Answer: 1\n\nActually, `count` is the wrong variable.", 1),
    # a bug described on a line of strong second thoughts
    ("Answer: 0\n\nHmm, wait. The condition `i > 0` should probably be `i >= 0`.", Refused("another answer")),
    ("Answer: 0\n\nUpdate: on closer inspection there is a swapped comparison on line 3.", Refused("another answer")),
    ("Answer: 0\n\nWait, line 3 uses `<` where it needs `<=`.", Refused("another answer")),
    ("Answer: 1\n\nWait, line 3 uses `<` where it needs `<=`.", 1),
    # ... in a sentence inside a line, after its end or a pause
    ("Answer: 0\n\nThe loop is fine. Wait, the comparison is swapped.", Refused("another answer \\(1\\)")),
    ("Answer: 0\n\nThe loop is fine; wait, `i > 0` should be `i >= 0`.", Refused("another answer \\(1\\)")),
    ("Answer: 1\n\nThe loop is fine. Wait, the comparison is swapped.", 1),
    ("Answer: 0\n\nThe loop is fine. Wait, is the comparison swapped? No.", 0),
    ("Answer: 0\n\nThe variable `i` is used correctly; actually, `j` is not misused either.", 0),  # negated
    ("Answer: 0\n\nThe upper bound is exclusive (instead of inclusive), as range() expects.", 0),  # an aside
    # a JSON object over several lines is read whole
    ('{\n  "answer": 1,\n  "explanation": "off by one"\n}', 1),
    ('```json\n{\n  "has_bug": true\n}\n```', 1),
    ('{\n  "answer": 1,\n  "buggy": false\n}', Refused("conflicting")),
    ("Answer: 0\n\nThe loop is fine, wait, the comparison is swapped.", Refused("another answer")),  # a comma
    # a contrast that names a defect after a verdict of none, after a pause too; one that names none is a note
    ("Answer: 0\n\nThe loop is fine; but the comparison is swapped.", Refused("another answer")),
    ("Answer: 0\n\nThe loop is correct. However, the comparison is swapped.", Refused("another answer")),
    ("Answer: 0\n\nThe code is correct. But j is misused in the inner loop.", Refused("another answer")),
    ("Answer: 0\n\nThe code is correct. However, the comparison should be <= to include the end.", Refused("another")),
    ("Answer: 0\n\nThe loop is fine. But wait, the comparison is swapped.", Refused("another answer")),  # strong
    ("Answer: 0\n\nThe loop is fine. However, the name is misleading.", 0),
    ("Answer: 0\n\nNo bug. However, the variable name could be clearer.", 0),
    ("Answer: 0\n\nThe loop is fine; but it could be faster.", 0),
    ("Answer: 0\n\nThe code is correct. But `i` should be renamed.", 0),
    ("Answer: 0\n\nThe code is correct, but the comparison is not swapped.", 0),
    ("Answer: 1\n\nThe loop is fine, but the comparison is swapped.", 1),
    ("Answer: 0\n\nThe loop is fine, actually, `<` should be `<=`.", Refused("another answer")),
    ("Answer: 0\n\nNo bug, or wait, `i > 0` should be `i >= 0`.", Refused("another answer")),  # a verdict taken back
    ("Answer: 0\n\nNo bug, scratch that, 1.", Refused("another answer")),
    ("Answer: 0\n\nThe loop is fine - actually no, `i` is off by one.", Refused("another answer")),
    ("Answer: 0\n\nThe edge case, actually, should be fine since the list is never empty.", 0),  # asides
    ("Answer: 0\n\nEdge cases: actually, an empty input should return 0, and it does.", 0),
    ("Answer: 0\n\nNaming nit: actually, `l` should be `lst` for readability; the logic is right.", 0),
    ("Answer: 0\n\nThe guard - actually the first line - should return early for empty input, and it does.", 0),
    # ... but not one of style or of what is no code, a condition, a hypothesis, or one denied after it
    ("Answer: 0\n\nIt is correct. However, the variable `tmp` should be `temp` to match the docstring.", 0),
    ("Answer: 0\n\nNo bug here, but `print` should be `logging.debug` in production code.", 0),
    ("Answer: 0\n\nIt handles all cases. However, one might think `<` should be `<=`; it should not.", 0),
    ("Answer: 0\n\nIt is correct. But `<` should be `<=` only if inclusive bounds were intended.", 0),
    ("Answer: 0\n\nThe bound, actually, would be off by one only if `hi` were inclusive.", 0),
    ("Answer: 0\n\nThe loop is fine, but an off-by-one would appear if `n` were negative.", 0),
    ("Answer: 0\n\nThe code is correct, but the parameter `l` should be `lst`: `l` looks like `1`.", 0),
    ("Answer: 0\n\nNo bug, actually, there is one: `j` is misused.", Refused("another answer")),  # after a verdict
    ("Answer: 0\n\nLooks fine, actually, `j` is misused.", Refused("another answer")),
    ("Answer: 0\n\nNo bug" + ", wait, no bug" * 40 + ", scratch that, 1.", Refused("another answer")),  # each once
]

NAMES = [
    ("`get_value`", ("get", "value")),
    # a verdict that ends second thoughts, or opens them after a bare no, is no name
    ("Answer: `retry`\n\nHold on, no exception is swallowed, so the name is honest.", ("retry",)),
    ("Answer: `parse_header`\n\nWait, it also validates the magic bytes, so it's fine.", ("parse", "header")),
    ("Answer: `merge_dicts`\n\nWait, no, that's fine — `merge_dicts` is accurate.", ("merge", "dicts")),
    ("Answer: `is_empty`\n\nHmm, no. It is fine as is.", ("is", "empty")),
    # what fits as well in a clause that denies it is no alternative
    ("Answer: clamp\n\nNo other name fits as well — `bound` or `limit` are less common.", ("clamp",)),
    ("Answer: lcm\n\nWait, no, it recurses on a % b: that's gcd, not lcm.", Refused("another answer")),
    ("Answer: `mean`\n\nAlternatively, `average` would work just as well.", Refused("another answer")),
    ("Answer: compute_total\n\n`total` fits better than `t` for the local variable.", ("compute", "total")),
    ("Answer: compute_mean\n\nNo other candidate fits as well — `average` is less specific.", ("compute", "mean")),
    ("Answer: `get_data`\n\nName: `get_data` - actually `fetch_data`, since it makes a request.", Refused("another")),
    ("Answer: `build_index`\n\nIt builds a dict - actually `defaultdict(list)`, as keys repeat.", ("build", "index")),
    # a last line without a final answer: a sentence about the code names no function, nor does a line of code
    ("It divides the sum by the count.\n\nIt returns `total`.", Refused("sentence about the code")),
    ("It returns the `mean`.", Refused("sentence about the code")),
    ("It returns the mean, so I'd call it `compute_mean`.", ("compute", "mean")),
    ("```python\ndef compute_mean(xs):\n    return sum(xs) / len(xs)\n```", Refused("code block")),
    ("The name:\n\n```\ncompute_mean\n```", ("compute", "mean")),  # a block of one line presents it
    # code after the final answer that defines a function under another name gives that name
    ("Answer: mean\n\n```python\ndef compute_mean(xs):\n    return sum(xs) / len(xs)\n```", Refused("another answer")),
    ("Answer: contains\n\n```java\npublic boolean hasItem(Object o) {\n  return false;\n}\n```", Refused("another")),
    (
        "Answer: compute_mean\n\n```python\ndef compute_mean(xs):\n    return sum(xs) / len(xs)\n```",
        ("compute", "mean"),
    ),
    ("Answer: compute_mean\n\n```python\ndef METHOD_NAME(xs):\n    return 1\n```", ("compute", "mean")),
    ("Answer: getValue", ("get", "value")),
    ("get_value()", ("get", "value")),
    ("def get_value(self):", ("get", "value")),
    ("public int getHTTPResponse()", ("get", "http", "response")),
    ("It sums the list, so I'd call it `compute_total`.", ("compute", "total")),
    ('Name: "is_empty"', ("is", "empty")),
    ("Function name: parseHeader", ("parse", "header")),
    ("self.reset_counter", ("reset", "counter")),
    ("<think>maybe `add` or `plus`</think>\n**Answer:** `add_all`", ("add", "all")),
    ("Maybe `sum_list` or `total`", Refused("alternatives")),
    ("Answer: compute_total (or total)", Refused("alternatives")),
    ("Answer: def", Refused("keyword")),
    ("Answer: or_else", ("or", "else")),
    ("I'm sorry, I cannot help.", Refused("sorry, cannot, …")),
    ("get value", Refused("identifiers")),
    ("The name is get_value", Refused("identifiers")),
    ("METHOD_NAME", Refused("placeholder")),
    ("Answer: 12345", Refused("no identifier")),
    # second thoughts after the final answer give another name
    ("Answer: get_value\nActually, a better name is `fetch_value`.", Refused("another answer")),
    ("Answer: get_value\nOn second thought: fetch_value", Refused("another answer")),
    ("Answer: get_value\n\nWait — maybe fetch_value is better.", Refused("another answer")),
    ("Answer: get_value\nActually, get_value is fine.", ("get", "value")),
    ("Answer: get_value\n\nIt returns `self.value`.", ("get", "value")),  # a note gives no name
    ("Answer: get_value (alternatively fetch_value)", Refused("alternatives")),
    ("Answer: get_value\nUpdate: `fetch_value`", Refused("another answer")),
    ("Answer: get_value\nI think fetch_value is better.", Refused("another answer")),
    ("Answer: get_value\n\nAnswer: fetch_value", Refused("another answer")),
    # a quoted identifier in a note after the bare answer is no answer: the opening name is, or the reply refused
    ("Answer: get_value (returns `self.value`)", ("get", "value")),
    ("Answer: get_value (not `fetch_value`)", ("get", "value")),
    ("Answer: getValue, following the `getX` convention", ("get", "value")),
    ("Answer: parse_config — reads the `config.yaml` file", ("parse", "config")),
    ("Answer: compute_total — sums `items`", ("compute", "total")),
    ("Answer: get_value rather than `value`", Refused("quoted name beside a bare one")),
    ("The method returns the value of `x`, so I'd name it getX.", Refused("quoted name beside a bare one")),
    ("Answer: I'd name it `get_value`", ("get", "value")),  # prose before it: the quoted name is the answer
    ("Answer: `get_value` (returns `self.value`)", ("get", "value")),  # a quoted name opens it: a note follows
    ("Answer: `get_value` (`fetch_value`)", Refused("2 different quoted names")),  # no note: an alias, or two
    ("Answer: get_value (`fetch_value`)", Refused("quoted name beside a bare one")),
    ("Answer: is_empty (checks `len(self.items) == 0`)", ("is", "empty")),
    ("Answer: get_value (`def get_value(self)`)", ("get", "value")),
    # a correction inside the answer's line
    ("Answer: get_value (actually fetch_value)", Refused("second thoughts inside")),
    ("Answer: get_value (actual value)", ("get", "value")),
    # the last line, after the final answer, gives another name alone
    (
        "I must end with a line in this form:\nAnswer: get_value\n\nIt sums, so I'd name it `compute_total`.",
        Refused("last line gives another"),
    ),
    ("## Answer\n\nThe function returns `self.value`.\n\n**get_value**", Refused("another answer")),
    ("Answer: get_value\n\nIt sums, so I'd name it `get_value`.", ("get", "value")),
    ("Answer: get_value\n\nThe name is clear.", ("get", "value")),
    ("Answer: get_value\n\n```python\nif __name__ == '__main__':\n    main()\n```", ("get", "value")),  # code
    # weak openers give another name only where one is presented as the name
    ("Answer: get_value\n\nI think the name fits since it returns `self.value`.", ("get", "value")),
    ("Answer: getName\n\nFinally, note that it returns `name`.", ("get", "name")),
    ("Answer: get_value\n\nBut it doesn't modify `self`.", ("get", "value")),
    ("Answer: compute_total\n\nBut `sum_items` would also work.", Refused("another answer")),
    ("Answer: get_value\n\nBut it could be `value` as a property.", Refused("another answer")),
    # prose of one word is no name, wherever the name is taken (the last line too)
    ("Sure!", Refused("prose")),
    ("Thinking.", Refused("prose")),
    ("OK", Refused("prose")),
    ("Hello", Refused("prose")),
    ("Let me look at this.\nSure!", Refused("prose")),
    ("Answer: Done.", Refused("prose")),
    ("ok", ("ok",)),  # in lower case, bare, a word may be a name
    ("Answer: hello", ("hello",)),
    ('Answer: "Hello"', ("hello",)),  # quoted, it is one
    ("`Hello`", Refused("prose")),  # (inline code around a whole answer is markdown, removed first)
    ("Parse", ("parse",)),  # a capitalised word that is no interjection, not closed as a sentence
    # identifiers may hold any letters
    ("Answer: get_välue", ("get", "välue")),
    ("Answer: naïveBayes", ("naïve", "bayes")),
    ("<answer>get_value</answer>", ("get", "value")),
    # a correction after the answer in a sentence: a name presented by a verb, or alone with a verdict on it
    ("Answer: get_value\n\nActually, fetch is better.", Refused("another answer")),
    ("Answer: get_value\n\nActually, I'd rename it to total.", Refused("another answer \\(\\('total',\\)\\)")),
    ("Answer: get_value\n\nActually, it should be renamed to total.", Refused("another answer")),
    ("Answer: get_value\n\nI'd call it total.", Refused("another answer \\(\\('total',\\)\\)")),  # not ``to|tal``
    ("Answer: get_value\n\nIt could be named as_list.", Refused("another answer \\(\\('as', 'list'\\)\\)")),
    # ... near misses: a verdict on the name is none
    ("Answer: get_value\n\nActually, get_value is fine.", ("get", "value")),
    ("Answer: get_value\n\nActually, this is fine.", ("get", "value")),
    ("Answer: get_value\n\nWait, the name is clear.", ("get", "value")),
    ("Answer: get_value\n\nActually, I'd keep it.", ("get", "value")),
    # LaTeX: an escaped underscore
    ("\\boxed{get\\_value}", ("get", "value")),
    ("Answer: $get\\_value$", ("get", "value")),
    # a name before a colon is the name, a note after it
    ("Answer: getValue: returns `this.value`", ("get", "value")),
    ("Answer: getValue: getter for `value`", ("get", "value")),
    ("Answer: is_prime: checks whether `n` is prime", ("is", "prime")),
    ("Answer: isPrime: returns `true` if `n` is prime", ("is", "prime")),
    ("Answer: function_name: get_value", ("get", "value")),  # ... a label's words are a label
    ("Answer: getValue: fetchValue", Refused("2 different identifiers")),
    # a retraction after the final answer
    ("Answer: calculate_average\n\nWait, that's wrong — it returns the total.", Refused("retracts")),
    ("Answer: hasItem\n\nSorry, I meant contains.", Refused("another answer")),
    ("Answer: get_value\n\nSorry, I meant `fetch_value`.", Refused("another answer")),
    ("**Answer: get_value**", ("get", "value")),
    ("Answer: get_value\n\nIt returns a value. Actually, `fetch_value` is better.", Refused("another answer")),
    ("Answer: get_value\n\nIt returns a value. Actually, it never fails.", ("get", "value")),
    # a quoted name with a word right after it that is no prose is part of a longer name
    ("Answer: `value` getter", Refused("inside a phrase")),
    ("Answer: `get` value", Refused("inside a phrase")),
    ("I'd name it `value` accessor.", Refused("inside a phrase")),
    ("Answer: `get_value` is clearer", ("get", "value")),
    ("Answer: `getValue` in Java", ("get", "value")),
    ("Answer: 'is_empty' checks whether the list is empty", ("is", "empty")),
    ("I'd name it `get_value` since it returns the value.", ("get", "value")),
    # ... a name of several subtokens is whole: any word may follow it
    ("Answer: `get_value` looks good", ("get", "value")),
    ("Answer: `getValue` reads nicely", ("get", "value")),
    ("I'd name it `fetch_value` instead.", ("fetch", "value")),
    ("Answer: `value` looks good", Refused("inside a phrase")),
    ("Answer: `get_` value", Refused("inside a phrase")),  # an underscore at its end makes no second subtoken
    # ... and any quoted name that a word offering another, or an identifier, follows
    ("Answer: `compute_total` vs total", Refused("another name offered")),
    ("I'd name it `get_value` unless you prefer value.", Refused("another name offered")),
    # ... after a pause too, a slash, and words that say another fits as well; a concession or a note offers none
    ("Answer: `compute_total`, though total works too.", Refused("another name offered")),
    ("Answer: `compute_total`; total also works.", Refused("another name offered")),
    ("Answer: `compute_total` / total", Refused("another name offered")),
    ("Answer: `compute_total` - total is also fine", Refused("another name offered")),
    ("Answer: `compute_total`, else total", Refused("another name offered")),
    ("Answer: `compute_total`, unless you prefer total", Refused("another name offered")),
    ("Answer: `get_value` (value works too)", Refused("another name offered")),
    ("Answer: `compute_total`, though it is long.", ("compute", "total")),
    ("Answer: `compute_total`; it sums the prices.", ("compute", "total")),
    ("Answer: `compute_total`, which works well.", ("compute", "total")),
    ("Answer: `is_valid`, also fine for tuples", ("is", "valid")),
    ("Answer: `compute_total`; the function also works for floats.", ("compute", "total")),
    ("Answer: `get_value` or_default", Refused("another name offered")),
    # in second thoughts a quoted name is another answer, inside a phrase or not; they run to the line's end
    ("Answer: compute_total\n\nActually, `total` looks cleaner.", Refused("another answer")),
    ("Answer: get_value\n\nHmm, `value` alone may be enough.", Refused("another answer")),
    ("Answer: get_value\n\nWait, it reads from a cache. Better: `fetch_value`.", Refused("another answer")),
    ("Answer: compute_total\n\nIt sums. Wait, I misread the loop.", Refused("retracts")),
    # two code spans are two names, never one span around the word between them
    ("Answer: `total` over `sum`", Refused("2 different quoted names")),
    ("Answer: ``get_value``", ("get", "value")),
    ("Answer: `get_value`\n\nIt reads the value, actually `fetch_value` is better.", Refused("another answer")),
    (
        "Answer: `get_value`\n\nA getter. Wait, two things: 1) it writes the cache, 2) it reads, so `load_value`.",
        Refused("another"),
    ),
    ("Answer: `get_value`\n\nA getter [actually, `read_value`].", Refused("another answer")),
    ("Answer: `get_value`\n\nIt is, actually, a plain getter for the `value` attribute.", ("get", "value")),  # asides
    (
        "Answer: `count_words`\n\nNote: actually `split()` with no arguments handles repeated spaces.",
        ("count", "words"),
    ),
    ("Answer: `get_value`\n\nIt wraps the attribute - actually `self._value` - in a method.", ("get", "value")),
    (
        "Answer: `wait_for_lock`\n\nThe loop [wait until `locked` is False] sleeps 10 ms per round.",
        ("wait", "for", "lock"),
    ),
    ("Answer: `compute_total` (`sum_prices` also works)", Refused("another name offered")),  # quoted
    ("Answer: `compute_total` — `total_price` would be fine as well", Refused("another name offered")),
    ("Answer: `get_value` - `read_value` works too", Refused("another name offered")),
    ("Name: `compute_total` (it sums the prices; `calc_total` also works)", Refused("another name offered")),
    ("Answer: `is_valid_email` (an empty string is valid too, by design)", ("is", "valid", "email")),  # prose
    ("Answer: `compute_total` — summing is okay too for a list of numbers", ("compute", "total")),
    ("Answer: `strip_tags`, plus it unescapes entities", ("strip", "tags")),
    ("Answer: `compute_total` (empty input works too)", ("compute", "total")),
    ("I'd name it `compute_total` — negative prices are valid too.", ("compute", "total")),
]

CLASSIFY = [
    # second thoughts after a pause open only with words of correction, never an aside's
    ("Answer: sorting\n\nIt scans the list (rather than searching it).", "sorting"),
    ("Answer: sorting\n\nIt orders the list; sorry for the long explanation.", "sorting"),
    ("Answer: sorting\n\nIt orders the list (wait, searching).", Refused("another answer")),
    # a task whose answer is no number: a number opening it after the marker is a list's mark
    ("Answer: 1. sorting", "sorting"),
    ("**Answer:**\n2) searching", "searching"),
    ("positive", "positive"),
    ('**"Sorting".**', "Sorting"),
    ("Answer: `graph search`", "graph search"),
    ("The program sorts a list in place.\nFinal answer: sorting\n", "sorting"),
    ("<think>it could be searching</think>\n\nsorting!", "sorting"),
    ('Answer: "."', Refused("no label")),
    # a last line without a final answer is a label only when it is short, never a sentence
    ("I'm not sure. Maybe sorting.", Refused("a sentence")),
    ("This program sorts a list of numbers in place", Refused("a sentence")),
    ("binary search", "binary search"),
    # one label alone, not two, not one with an explanation, not a sentence, a question or no answer
    ("Answer: sorting (it sorts a list)", Refused("not one label")),
    ("Answer: sorting - it reorders the list", Refused("not one label")),
    ("Answer: sorting, because it reorders the list", Refused("not one label")),
    ("Answer: sorting. The program reorders a list.", Refused("not one label")),
    ("Answer: sorting or searching", Refused("not one label")),
    ("Answer: sorting?", Refused("a question")),
    ("Answer: I cannot tell", Refused("no label")),
    ("Answer: The program is a sorting algorithm", Refused("no label")),
    ("Answer: not searching but sorting", Refused("no label")),
    ("Answer: probably sorting", "sorting"),  # a hedging adverb is no part of the label
    ("Answer: not pure", "not pure"),  # a label may hold a negation
    ("Answer: unclear", Refused("no label")),
    ("Answer: divide-and-conquer", "divide-and-conquer"),
    # second thoughts after the final answer; a heading that is only the word; prose on the last line
    ("Answer: sorting\nActually, searching.", Refused("another answer")),
    ("Answer: sorting\n\nWait, it is graph search.", Refused("another answer")),
    ("## Answer\nsorting\nThe nested loops swap adjacent elements.", "sorting"),
    ("sorting\nThe nested loops swap adjacent elements.", Refused("a sentence")),
    # two labels joined, in lower case either side; a label written with a slash or in capitals is one
    ("Answer: sorting/searching", Refused("two labels joined")),
    ("Answer: sorting and searching", Refused("two labels joined")),
    ("Answer: sorting & searching", Refused("two labels joined")),
    ("Answer: binary search and sorting", Refused("two labels joined")),
    ("Answer: I/O", "I/O"),
    ("Answer: TCP/IP", "TCP/IP"),
    ("Answer: divide-and-conquer", "divide-and-conquer"),
    # a label is read as written: the task knows no label set to spell it as
    ("Answer: Sorting.", "Sorting"),
    ("Answer: sorting", "sorting"),
    # second thoughts opened by any of the shared words; two explicit final answers that differ
    ("Answer: sorting\nI think it's searching.", Refused("another answer")),
    ("Answer: sorting\nBut it also searches.", "sorting"),
    ("Answer: sorting\nOn reflection, searching.\nFinal answer: searching", Refused("another answer")),
    ("Answer: sorting\n\nFinal answer: sorting", "sorting"),
    ("<answer>sorting</answer>", "sorting"),
    ("Answer: \\boxed{\\text{sorting}}", "sorting"),  # a marker's line holding a box is given by its content
    # weak openers give another label only alone, after an explicit marker, or offered at the line's end
    ("Answer: sorting\n\nI think that's the best fit.", "sorting"),
    ("Answer: sorting\n\nI think it's a reasonable label.", "sorting"),
    ("Answer: sorting\n\nBut that's just my guess.", "sorting"),
    ("Answer: sorting\n\nIn fact, it's bubble sort.", "sorting"),
    ("Answer: sorting\n\nFinally, the output is sorted.", "sorting"),
    ("Answer: sorting\n\nI think sorting fits.", "sorting"),
    ("Answer: sorting\n\nI think searching.", Refused("another answer")),
    ("Answer: sorting\n\nBut the best label would be searching.", Refused("another answer")),
    ("Answer: sorting\n\nBut it's close to searching.", Refused("another answer")),
    # the last line, after the final answer, gives another label alone
    ("The required format is:\nAnswer: sorting\n\nThe program looks up a key.\n\nsearching", Refused("last line")),
    ("Answer: sorting\n\nThe program sorts a list.\n\n**sorting**", "sorting"),
    # markup around a label: brackets, a key (``label =``, ``Category:``), a JSON object, a table's row, symbols
    ("Answer: [sorting]", "sorting"),
    ("Answer: <sorting>", "sorting"),
    ("Answer: (sorting)", "sorting"),
    ("Answer: {sorting}", "sorting"),
    ("Answer: ['sorting']", "sorting"),
    ("label = sorting", "sorting"),
    ("Answer: label: sorting", "sorting"),
    ("**Label:** `sorting`", "sorting"),
    ("Classification: **Sorting**", "Sorting"),
    ('label="sorting"', "sorting"),
    ('{"label": "sorting", "confidence": 0.9}', "sorting"),
    ('```json\n{"category": "sorting"}\n```', "sorting"),
    ("| Label | sorting |", "sorting"),
    ("Answer: sorting ✅", "sorting"),
    ("Answer: $\\text{sorting}$", "sorting"),
    ("Answer: O(n log n)", "O(n log n)"),  # parentheses inside a label are its own
    ("Answer: <=", "<="),  # a label of symbols alone
    ("Answer: [1] sorting", Refused("no clean label")),
    ("Answer: <b>sorting</b>", Refused("no clean label")),
    # ... what is still no clean label
    ("Answer: [sorting, searching]", Refused("not one label")),
    ('Answer: ["sorting", "searching"]', Refused("no clean label")),
    ('{"label": ["sorting", "searching"]}', Refused("not one label")),
    ('{"explanation": "it sorts"}', Refused("no one label")),
    ("Answer: label=sorting; confidence=0.9", Refused("no clean label")),
    ("Answer: <label>sorting</label>", Refused("no clean label")),
    ("Answer: x = sorting", Refused("no clean label")),
    ("| Label | sorting | high |", Refused("table")),
    # a correction after the answer that presents another label at its end
    ("Answer: sorting\nActually, the program searches, so the answer is searching.", Refused("another answer")),
    ("Answer: sorting\nActually, it sorts, so the label is sorting.", "sorting"),
    # a placeholder, or a word that says there is none, is no label; ``Output:`` is no key in text
    ("Answer: LABEL", Refused("placeholder")),
    ("Answer: <label>", Refused("placeholder")),
    ("Answer: [label]", Refused("placeholder")),
    ("Answer: your_label_here", Refused("placeholder")),
    ("Answer: N/A", Refused("placeholder")),
    ("Answer: none", Refused("placeholder")),
    ("Answer: unknown", Refused("placeholder")),
    ("Answer: labeling", "labeling"),
    ("Answer: Output: sorted list", Refused("not one label")),
    ("Answer: Type: sorting", "sorting"),
    ('{"output": "sorting"}', "sorting"),
    ("**Answer: sorting**", "sorting"),
    # a retraction after the final answer, with or without another label
    ("Answer: sorting\n\nSorry, I meant searching.", Refused("another answer")),
    ("Answer: sorting\n\nActually, I'd go with searching.", Refused("another answer")),
    ("Answer: sorting\n\nWait, I misread the code.", Refused("retracts")),
    ("Answer: sorting\n\nActually, I'd go with sorting.", "sorting"),  # ... the same label again
    # a last line that closes a chat, or holds no word, is no label; a JSON object over several lines is read whole
    ("The loops swap neighbours.\n\nHope this helps!", Refused("pleasantry")),
    ("The loops swap neighbours.\n\nGood luck with your project!", Refused("pleasantry")),
    ("The loops swap neighbours.\n\nSee the analysis above.", Refused("pleasantry")),
    ("The loops swap neighbours.\n\nO(n^2)", "O(n^2)"),  # ... a label may be a complexity
    ("The loops swap neighbours.\n\nSorting!", "Sorting"),
    ('{\n  "label": "sorting"\n}', "sorting"),
    ('```json\n{\n  "label": "sorting",\n  "confidence": 0.95\n}\n```', "sorting"),
    ("The loops swap neighbours.\n\n}", Refused("holds no word")),
    # what insists on a label, an arrow, an option's mark; two quoted labels
    ("The loops swap neighbours.\n\nClearly sorting.", "sorting"),
    ("The loops swap neighbours.\n\n→ sorting", "sorting"),
    ("Answer: (a) sorting", "sorting"),
    ("Answer: 'sorting' and 'searching'", Refused("quote inside")),
    ("Answer: Dijkstra's algorithm", "Dijkstra's algorithm"),
    ("Answer: sorting\n\nIt sorts. No wait, searching.", Refused("another answer")),  # second thoughts mid-line
    ("Answer: sorting\n\nIt sorts. But it searches first.", "sorting"),  # weak words mid-line open no thoughts
    ("Answer: sorting\n\nWait. Searching.", Refused("another answer")),  # second thoughts run to the line's end
    ("Answer: sorting\n\nIt sorts. No, wait: searching.", Refused("another answer")),
    ("Answer: sorting\n\nHold on, it's searching.", Refused("another answer")),
    ("Answer: sorting\n\nIt sorts. Hmm, I misread the loop.", Refused("retracts")),  # a retraction mid-line
    ("Answer: sorting\n\nIt orders the list, wait, searching.", Refused("another answer")),  # after a comma
    ("Answer: sorting\n\nIt orders the list: actually it is sorting.", "sorting"),
    ("Answer: sorting\n\nIt orders the list: actually, searching.", Refused("another answer")),
    ("Answer: sorting\n\nIt orders the list - actually, perhaps searching.", Refused("another answer")),
    ("Answer: sorting\n\nThat's sorting - actually searching, it returns an index.", Refused("another answer")),
    ("Answer: sorting\n\nIt is, actually, a textbook bubble sort, since it swaps neighbours.", "sorting"),
    ("Answer: sorting\n\nIt is, actually, a textbook bubble sort.", "sorting"),  # asides
    ("Answer: sorting\n\nNote: actually the outer loop could stop early if no swaps occur.", "sorting"),
    ("Answer: searching\n\nThe loop [wait for the match] returns the index as soon as it finds the key.", "searching"),
    ("Answer: sorting\n\nIt sorts, actually, in place.", Refused("another answer")),  # in place may be a label
    ("Answer: sorting\n\nIt orders the list, wait, it only finds the position, so searching.", Refused("another")),
    ("Answer: string\n\nString manipulation; hold on, it parses numbers, so math.", Refused("another")),
    ("Answer: sorting\n\nWait, it swaps elements, so it really is sorting.", "sorting"),
    # a head after a bare no; words a conclusion keeps around the same answer; a colon after another subject
    ("Answer: sorting\n\nWait, no — searching. It stops at the first match.", Refused("another answer")),
    ("Answer: sorting\n\nNo wait.", Refused("retracts")),
    ("Answer: math\n\nHmm, no, string: it's all about character counts.", Refused("another answer")),
    ("Answer: searching\n\nNo wait, no: it's sorting, the output is the reordered list.", Refused("another")),
    ("Answer: math\n\nIt's math (wait, no — let me re-read... yes, math).", "math"),
    ("Answer: math\n\nWait, it loops over the characters, but only to parse digits, so it is still math.", "math"),
    ("Answer: sorting\n\nWait, it also removes duplicates, so it's sorting anyway.", "sorting"),
    ("Answer: sorting\n\nNo other label fits as well — searching, for instance, would need a target.", "sorting"),
    ("Answer: graph\n\nNone of the other labels fits as well: math, string and sorting don't describe a BFS.", "graph"),
    ("Answer: string\n\nActually, since it fills a table of costs, graph is the better label.", Refused("another")),
    ("Answer: sorting\n\nBut the label that fits even better is math, since it counts.", Refused("another answer")),
    # a dash that concludes strong second thoughts, and what follows the answer there (not …)
    ("Answer: string\n\nOn second thought, it reverses a number's digits (n % 10) — that's math.", Refused("another")),
    ("Answer: sorting\n\nWait, it only counts occurrences to find the mode — math, not sorting.", Refused("another")),
    ("Answer: string\n\nWait, let me check the return value: a string with the vowels removed — yes.", "string"),
    ("Answer: sorting\n\nSearching fits as well — it returns the index it stops at.", Refused("another answer")),
    ("Answer: sorting\n\nI'd also consider searching: the loop stops at the key.", Refused("another answer")),
    ("Answer: math\n\nIt may be slow for large inputs (trial division up to n), but it's a primality test.", "math"),
    ("Answer: math\n\nWait, the recursion is exponentiation by squaring, so math after all.", "math"),
    ("Answer: graph\n\nHmm, no. It really is graph traversal: the queue is reused.", "graph"),
    ("Answer: graph\n\nThe traversal is breadth-first - actually level by level, since it uses a deque.", "graph"),
    ("Answer: searching\n\nI'd say searching - actually sorting once you see `return arr`.", Refused("another")),
]

EXEC = [
    ("Answer: [2, 4]", "[2, 4]"),
    ("Answer: {'a': 1}", "{'a': 1}"),
    ("Answer: (1, 2)", "(1, 2)"),
    # a tuple without its parentheses: a thousands separator, or two answers
    ("Answer: 1,234", Refused("reads two ways")),
    ("Answer: 6, 7", Refused("reads two ways")),
    # an object that wraps the answer, or the dict itself
    ('{"answer": 6}', Refused("wraps an answer")),
    ("Answer: {'output': [2, 4]}", Refused("wraps an answer")),
    # second thoughts after the final answer give another literal; a note gives none
    ("Answer: 6\nWait, it's 7.", Refused("another answer")),
    ("Answer: 'abc'\nActually, the call returns 'cba'.", Refused("another answer")),
    ("Answer: [2, 4]\n\nThe function returns [2, 4] because the loop doubles.", "[2, 4]"),
    ("Answer: [2, 4]\n\nActually, wait: the loop doubles, so [2, 4] is right.", "[2, 4]"),
    ("Answer: 6\nUpdate: 7", Refused("another answer")),
    ("Answer: 6\n\nAnswer: 7", Refused("another answer")),
    ("Answer: '__init__'\n\nAnswer: '__init__'", "'__init__'"),  # compared as the task tidies it
    # the last line, after the final answer, gives another literal alone
    ("The required format is:\nAnswer: [2, 4]\n\nTracing: f(3) = 6.\n\n`6`", Refused("last line gives another")),
    ("Answer: 6\n\nTracing: f(3) = 6.\n\n`6`", "6"),
    ("Answer: 6\n\nHope this helps!", "6"),
    # a correction after the answer in a sentence: the value presented by the call, ``it``, ``the result``
    ("Answer: 6\nActually, f(3) returns 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\nWait, f(3) = 7.", Refused("another answer")),
    ("Answer: 6\nActually, the output is 7.", Refused("another answer")),
    ("Answer: 6\nActually, I miscounted: the result should be 7.", Refused("another answer")),
    ("Answer: 6\nActually, it returns 7 because the loop runs once more.", Refused("another answer")),
    ("Answer: 6\nWait, the result is 7 not 6.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nHmm, I made an error: the loop runs 4 times, so the answer is 10.", Refused("another answer")),
    ("Answer: True\n\nActually, the condition fails, so it returns False.", Refused("another answer")),
    ("Answer: 6\n\nSo f(3) = 7.", Refused("another answer")),  # a conclusion after the answer
    ("Answer: 6\n\nThe result is 7.", Refused("another answer")),
    # ... near misses: the same value, a count, an expression, a trace's steps, a note
    ("Answer: 6\nActually, f(3) returns 6.", "6"),
    ("Answer: 6\n\nActually, f(3) returns 6, as computed.", "6"),
    ("Answer: 6\nActually, the loop runs 3 times.", "6"),
    ("Answer: 6\nActually, 3 iterations are needed, as before.", "6"),
    ("Answer: 6\n\nActually, this is because f(3) returns 2 * 3.", "6"),
    ("Answer: 6\n\nTrace:\n- f(1) = 1\n- f(2) = 3\n- f(3) = 6", "6"),
    ("Answer: 6\n\nSo the loop runs 3 times.", "6"),
    ("Answer: 6\n\nSo 7 - 1 = 6.", "6"),
    ("Answer: [2, 4]\n\nThe output is a list of doubled values.", "[2, 4]"),
    ("Answer: $6$", "6"),
    # a bold answer line, as every task reads it
    ("**Answer: 6**", "6"),
    ("__Answer: 6__", "6"),
    ("**Answer: 'OLLEH'**", "'OLLEH'"),
    ("*Answer: True*", "True"),
    ("**Final Answer: [2, 4]**", "[2, 4]"),
    ("__Answer: '__init__'__", "'__init__'"),
    # ``$`` inside a string literal is the string's
    ("\\boxed{'$5.00'}", "'$5.00'"),
    ("$\\boxed{6}$", "6"),
    # second thoughts in a comment, and a retraction after the final answer
    ("Answer: 6 # wait, 7", Refused("comment")),
    ("Answer: 'OLLEH' # actually 'olleh'", Refused("comment")),
    ("Answer: 6 # the loop runs 3 times", "6"),
    ("Answer: '#x'", "'#x'"),
    ("Answer: [2, 4]\n\nWait, that's wrong.", Refused("retracts")),
    ("Answer: [2, 4]\n\nWait, I made a mistake: 1 and 3 are odd.", Refused("retracts")),
    ("Answer: [2, 4]\n\nLet me recompute: out = [4].", Refused("retracts")),
    ("Answer: [2, 4]\n\nSorry, I meant [4].", Refused("another answer")),
    ("Answer: 6\n\nCorrection: 6", "6"),
    ("Answer: [2, 4]\n\n```python\nassert f([1, 2, 3]) == [4]\n```", Refused("another answer")),  # a claimed value
    ("Answer: [2, 4]\n\n```python\nassert f([1, 2, 3]) == [2, 4]\n```", "[2, 4]"),
    # ... and one doctest's output, or one line that opens with a call compared with a value
    ("Answer: 6\n\n>>> f(3)\n7\n\nThat is what it prints.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\n```python\n>>> f(3)\n6\n```", "6"),
    ("Answer: 6\n\n```python\n>>> f(1)\n1\n>>> f(3)\n6\n```", "6"),  # several test other inputs
    ("Answer: 6\n\nf(3) == 7 holds here.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\n- `f(3) == 7`", Refused("another answer")),
    ("Answer: 6\n\nf(3) == 2 * 3 holds here.", "6"),  # an expression claims no literal
    ("Answer: 6\n\n```python\nif f(3) == 7:\n    pass\n```", "6"),  # a test in code claims nothing
    ("Answer: 6\n\n```python\nassert len(f(3)) == 7\n```", "6"),
    # ... an assertion's message is no part of its value
    ("Answer: 6\n\n```python\nassert f(3) == 6, 'off by one'\n```", "6"),
    ("Answer: 6\n\n```python\nassert f(3) == 7, 'off by one'\n```", Refused("another answer \\('7'\\)")),
    ("Answer: (6, 1)\n\n- `assert f(3) == (6, 1), \"pair\"`", "(6, 1)"),
    ("Answer: 6\n\nThe loop runs twice. No wait, 7.", Refused("another answer")),  # second thoughts mid-line
    ("Answer: 6\n\nThe loop runs twice. Actually, this is because of the base case.", "6"),
    # ... after a pause inside the line too: a dash, a semicolon, an ellipsis, in parentheses
    ("Answer: 6\n\nThe sum is 6 — wait, 10.", Refused("another answer \\('10'\\)")),
    ("Answer: 6\n\nIt returns 6; actually 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6… no wait, 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 (wait, 7).", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6; wait, that's wrong.", Refused("retracts")),
    ("Answer: 6\n\nIt returns 6 — actually, because the base case adds 1.", "6"),
    ("Answer: 6\n\nIt returns 6 (actually 6 for any odd n).", "6"),
    ("Answer: 7\n\nThe value is 7 (actually f(3) returns 8).", Refused("another answer \\('8'\\)")),  # nested
    ("Answer: 7\n\nIt is 7 (final answer).", "7"),  # ... words that open asides there open none
    # ... a comma, a colon, a spaced hyphen or dash, a bracket, and inside brackets after a note
    ("Answer: 6\n\nIt returns 6, wait, 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6, actually 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6: actually 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 - actually 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 -- actually 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 [actually 7].", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 (note: actually 7).", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 — or wait, maybe 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nWait, maybe 7.", Refused("another answer \\('7'\\)")),  # a hedge on the correction
    ("Answer: 6\n\nActually it is probably 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6, actually.", "6"),
    ("Answer: 6\n\nIt is, actually, 6.", "6"),
    ("Answer: 6\n\nIt returns 6, actually, because n is odd.", "6"),
    ("Answer: 6\n\nThe loop - actually the recursion - adds 3 each time.", "6"),
    ("Answer: 6\n\nWait, probably not.", "6"),
    ("Answer: 6\n\n```\n7\n```", Refused("another answer")),  # a code block of one line after it
    ("Answer: 6\n\n```\n6\n```", "6"),
    ("The output:\n- `[2, 4]`", "[2, 4]"),  # a bullet before markup is no minus sign
    ("Result:\n- **6**", "6"),
    ("- 3", Refused("list item or as a negative number")),
    ("Answer: 6\n\nActually, I double-checked and it's right.", "6"),
    ("The call returns:\n{\n  'a': 1\n}", "{'a': 1}"),  # a dict over several lines, read whole
    # second thoughts run to the line's end, over their own sentence ends
    ("Answer: 6\n\nWait, the range is inclusive. So it returns 10.", Refused("another answer")),
    ("Answer: 6\n\nActually, the loop runs 4 times. So f(3) returns 10.", Refused("another answer")),
    ("Answer: 6\n\nWait. The result is 10.", Refused("another answer")),
    ("Answer: 6\n\nNo, wait: 10.", Refused("another answer")),
    ("Answer: 6\n\nThe sum is 6. No, wait, it's 10.", Refused("another answer")),
    ("Answer: 6\n\nWhoops, it's 10.", Refused("another answer")),
    ("Answer: 6\n\nWait a second, it's 10.", Refused("another answer")),
    ("Answer: 6\n\nThe loop runs three times. Wait, that's wrong.", Refused("retracts")),  # a retraction mid-line
    ("Answer: 6\n\nThe loop runs three times. Hold on, I miscounted the iterations.", Refused("retracts")),
    ("Answer: 6\n\nThe loop runs three times. Wait, 6 is right.", "6"),
    # second thoughts past a list mark, a smiley or a quoted bracket run on to their answer
    (
        "Answer: 6\n\nThat's 6. Actually, a) `n` is 4 here and b) the loop is inclusive, so it returns 10.",
        Refused("another"),
    ),
    ("Answer: 6\n\nI traced it. Wait :) it returns 7.", Refused("another answer")),
    ("Answer: '()'\n\nIt reverses. Wait, reversing '()' gives ')(' so it returns ')('.", Refused("another answer")),
    (
        "Answer: '[]'\n\nIt wraps nothing. Actually, it returns ']' because only the last character is kept.",
        Refused("another"),
    ),
    # ``actually`` after a comma, a colon, a hyphen or a bracket: weak, an answer alone there is another
    ("Answer: [1, 2]\n\nThe result is [1, 2], actually, maybe [1, 2, 3].", Refused("another answer")),
    ("Answer: 6\n\nIt returns 6: actually, more likely 7.", Refused("another answer")),
    ("Answer: 6\n\nIt returns 6, actually, it probably returns 7.", Refused("another answer")),
    ("Answer: 6\n\nActually, it probably returns 7.", Refused("another answer")),  # a hedge inside the lead-in
    ("Answer: 6\n\nIt returns 6: correction, 6 exactly, not 6.0.", Refused("retracts")),  # as at a line's start
    # a call tested with the value first, or by assertEqual; a call said to return a value in prose is a note
    ("Answer: 6\n\n`helper(3)` returns 3, and the caller doubles it.", "6"),
    ("Answer: 0\n\n`d.get('x')` returns None, so the default 0 is used.", "0"),
    ("Answer: 6\n\n```python\nprint(helper(3))  # 3\n```\n`f` doubles that.", "6"),
    ("Answer: 6\n\n```python\nassert 7 == f(3)\n```", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\n```python\nself.assertEqual(f(3), 7)\n```", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\n```python\nassert 1 == f(1)\nassert 3 == f(2)\n```", "6"),  # several test other inputs
    # no final answer: the last of several doctests of other calls and outputs says not which was asked
    ("Let me trace:\n\n>>> f(3)\n6\n>>> f(1)\n1", Refused("doctests of different calls")),
    ("```\n>>> f(1)\n1\n>>> f(3)\n6\n```", Refused("doctests of different calls")),
    ("Tracing f(3): it sums 1 to 3.\n\n```\n>>> f(3)\n6\n```", "6"),
    ("```\n>>> f(3)\n6\n>>> f(3)\n6\n```", "6"),
    ("Answer: 6\n\nWait, it would probably be 7.", Refused("another answer")),  # a hedge inside the verb
    ("Answer: 6\n\nThe result, wait, is 7.", Refused("another answer")),  # the subject before the pause
    ("Answer: 6\n\nWait, the loop runs 4 times.", "6"),
    # the conclusion that ends second thoughts: after so, thus, hence, therefore or a colon
    ("Answer: 6\n\nWait, the range is inclusive, so 10.", Refused("another answer \\('10'\\)")),
    ("Answer: 6\n\nThat gives 6 - wait, the range is inclusive, so it's 10.", Refused("another answer \\('10'\\)")),
    ("Answer: 6\n\nThe loop adds 1, 2 and 3, wait, it starts at 0 and goes to 4, so 10.", Refused("another")),
    ("Answer: 6\n\nSo the result is 6 [wait: n is 4, so 10].", Refused("another answer \\('10'\\)")),
    ("Answer: 6\n\nThe result is 6, hold on, the default `start=1` shifts it: 9.", Refused("another answer")),
    ("Answer: 6\n\nWait, the range is inclusive. Hence 10.", Refused("another answer \\('10'\\)")),
    ("Answer: True\n\nThe check passes - no wait - `x` is 0, which is falsy, so False.", Refused("another")),
    ("Answer: 6\n\nWait, the range is inclusive, so 6 is right.", "6"),  # no literal alone
    ("Answer: 6\n\nWait, the range is inclusive, so it's 6.", "6"),  # the same answer
    ("Answer: 6\n\nWait, let me check: 1 + 2 + 3 = 6. Yes.", "6"),
    ("Answer: 6\n\nWait, it is so slow: 2 calls.", "6"),  # so inside a clause opens none
    ("Answer: 0\n\nWait a second, the loop runs while `n > 0`, and n starts at 5 — so 15.", Refused("another")),
    ("Answer: 6\n\nWait — the loop runs 3 times — and adds 1, 2, 3.", "6"),
    # a bare no after the words of second thoughts; brackets that hold nothing else close none
    ("Answer: 6\n\nWait, no — 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nWait, no.", Refused("retracts")),  # a bare no retracts, and gives nothing instead
    ("Answer: 6\n\nWait, no. 6 is right.", "6"),
    ("Answer: 6\n\nWait, no... yes, 6.", "6"),
    ("Answer: 6\n\nActually, no, 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 (wait, no) — 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 (wait, no), it returns 7.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nIt returns 6 (wait, no — 6 is right).", "6"),
    ("Answer: 6\n\nWait, no element is 7.", "6"),  # no opening a phrase
    ("Answer: 6\n\nf(3) -> 6, wait, f(3) -> 7 because of the off-by-one.", Refused("another answer \\('7'\\)")),
    ("Answer: 6\n\nTrace: f(1) -> 1, f(2) -> 3, f(3) -> 6.", "6"),
    # an arrow after a builtin or a method is a trace's step, and the items after one no tuple
    ("Answer: 6\n\nWait — does the loop include n? range(1, n + 1) → 1, 2, 3, so yes: 6.", "6"),
    ("Answer: 6\n\nWait, range(1, 4) → [1, 2, 3], sum → 6.", "6"),
    ("Answer: (1, 2)\n\nWait, f(3) -> (2, 1).", Refused("another answer")),
    ("Answer: 6\n\nIt returns 6 - actually, perhaps 10, since `range` includes n + 1.", Refused("another answer")),
    ("Answer: 6\n\nThe sum is, actually, 6, as expected.", "6"),
    ("Answer: 'abc'\n\nIt is unchanged, actually, 'ABC' since `upper()` runs.", "'abc'"),  # after a comma: a note
    # pauses inside quotes and brackets are none (a dict's colon, a list's comma); arrows on a line that concludes
    ("Answer: {'a': 1}\n\nWait, the second assignment overwrites the key, so {'a': 2}.", Refused("another answer")),
    ("Answer: [1, 2]\n\nIt returns [1, 2] - actually [2, 1] because `reverse()` runs first.", Refused("another")),
    ("Answer: (1, 2)\n\nThat gives (1, 2) - actually (2, 1) once the swap runs.", Refused("another")),
    ("Answer: 'abc'\n\nWait, `s.upper()` is assigned back to `s`, therefore 'ABC'.", Refused("another answer")),
    ("Answer: 6\n\nThe sum is 6 — actually 10 once n itself is included.", Refused("another answer \\('10'\\)")),
    ("Answer: 5\n\nSo fib(4) -> 3 and fib(3) -> 2, and their sum is 5.", "5"),  # a trace's steps
    ("Answer: [1]\n\nSo pop() → 2, leaving [1].", "[1]"),
    ("Answer: 6\n\nThe list has 3 elements - actually 4 if you count the sentinel, which is dropped.", "6"),
]

SEQUENCES = [  # ltl, copy, alta, lm: today's values, read through the pipeline
    ("ltl", "a ; {b}", "a;{b}"),
    ("ltl", "<think>try b first</think>\nAnswer: a ; {b}", "a;{b}"),
    ("ltl", "Answer: a ; {b}\nAnswer: b ; {a}", Refused("another answer")),  # the shared step: finals must agree
    ("copy", "a b c", "abc"),
    ("copy", "Here is the copy:\nabcab", "abcab"),
    ("alta", "Answer: 1  0 1", "1 0 1"),
    ("lm", "2.5", 2.5),
    ("lm", "the loss is 2.5", Refused("not a number")),
]


@pytest.mark.parametrize("reply, expected", BHIVE)
def test_bhive_replies(reply, expected):
    check("bhive", reply, expected)


@pytest.mark.parametrize("reply, expected", BUGS)
def test_bugs_replies(reply, expected):
    check("bugs", reply, expected)


@pytest.mark.parametrize("reply, expected", NAMES)
def test_names_replies(reply, expected):
    check("names", reply, expected)


@pytest.mark.parametrize("reply, expected", CLASSIFY)
def test_classify_replies(reply, expected):
    check("classify", reply, expected)


@pytest.mark.parametrize("reply, expected", EXEC)
def test_exec_replies(reply, expected):
    check("exec", reply, expected)


@pytest.mark.parametrize("task, reply, expected", SEQUENCES)
def test_sequence_task_replies(task, reply, expected):
    check(task, reply, expected)


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Let me count: 7 instructions, 3 loads, so about 1.6", Refused("cut off at the token limit before")),
        ("Reasoning first.\nAnswer: 1.6", Refused("cut off at the token limit in its final answer")),
        ("Answer: 1.68 cycles\nLet me double-check the 3 loads", 1.68),
        ("so \\boxed{1.68} and the 3 loads", 1.68),
        ("<think>7 instructions and", Refused("cut off at the token limit while reasoning")),
        # cut in second thoughts after the final answer, or inside their first words: another answer may follow
        ("Answer: 1.68 cycles\nWait, the loads", Refused("cut off at the token limit in second thoughts")),
        ("Answer: 1.68 cycles\nActu", Refused("cut off at the token limit in second thoughts")),
        ("Answer: 1.68 cycles\nSo", 1.68),  # two letters may open anything
    ],
)
def test_a_reply_cut_at_the_token_limit_is_read_only_by_its_explicit_answer(reply, expected):
    check("bhive", reply, expected, truncated=True)
    if isinstance(expected, Refused):
        with pytest.raises(Unreadable, match="raise --max-tokens"):
            read("bhive", reply, truncated=True)


@pytest.mark.parametrize(
    "pattern, reply, truncated, expected",
    [
        (r"cycles=(\S+)", "cycles=1.5 first, then cycles=1.68\n", False, 1.68),  # the last match
        (r"\d+\.\d+", "x86-64: 1.5 at first, 1.68 after", False, 1.68),  # no group: the whole match
        (r"RESULT<(.*?)>", "7 loads, RESULT<2.5>, 9 stores", False, 2.5),
        (r"RESULT<(.*?)>", "<think>RESULT<9></think>RESULT<2.5>", False, 2.5),  # reasoning removed first
        (r"cycles=(\S+)", "about 1.68 cycles", False, Refused("no match")),
        (r"x=(\d+)|y=(\d+)", "y=3", False, Refused("took no part")),
        (r"cycles=(\S+)", "7 loads, cycles=1.6", True, Refused("cut off")),  # the match may be cut short
        (r"cycles=(\S+)", "cycles=1.68\nand", True, 1.68),
    ],
)
def test_answer_regex_decides(pattern, reply, truncated, expected):
    check("bhive", reply, expected, pattern=pattern, truncated=truncated)


def test_an_answer_regex_that_is_no_regex_is_a_usage_error():
    with pytest.raises(UsageError) as err:
        read("bhive", "1.68", pattern="cycles=(")
    assert err.value.path == "--answer-regex"


@pytest.mark.parametrize(
    "task, reply, value, candidates",
    [
        ("bhive", "The block has 7 instructions and 3 loads.\nAnswer: 1.68 cycles", 1.68, 1),
        ("bhive", "<think>7 instructions, 3 loads</think>\nAnswer: 1.68 cycles", 1.68, 1),
        ("bhive", "x86-64 on Haswell: 1.68 cycles, that is 1.68 cycles per iteration", 1.68, 1),
        ("bugs", "The loop looks buggy at first.\nOn closer look it is correct.\nAnswer: 0", 0, 2),
        ("bugs", "Not buggy.", 0, 1),
        ("names", "Maybe `compute_sum`.\nAnswer: get_total", ("get", "total"), 2),
        ("names", "Sure!\nAnswer: get_total", ("get", "total"), 1),  # a one-word sentence is prose, no name
        ("names", "Thinking.\n\n`get_total`", ("get", "total"), 1),
        ("bugs", "Answer: 0\nActually, line 1 is fine.", 0, 1),
        ("classify", "It sorts.\nAnswer: sorting", "sorting", 1),
    ],
)
def test_candidates_count_the_distinct_answers_a_reply_holds(task, reply, value, candidates):
    reading = read(task, reply)
    assert (reading.value, reading.candidates) == (value, candidates)


@pytest.mark.parametrize(
    "reply, value, candidates",
    [
        ("Answer:\n1. 4 cycles", 4, 1),  # the marker alone: the next line's "1." is a list's mark
        ("Answer: 4 cycles\nAnswer:\n1. 4 cycles", 4, 1),
        ("Answer: N cycles\nAnswer:\n1. 4 cycles", 4, 1),  # a final answer the task refuses is none
        ("Answer: 4. cycles", 4, 1),  # after the marker on its line, a number is the answer
        ("Answer: 3 cycles\nAnswer:\n1. 4 cycles", Refused("another answer"), None),  # two finals that differ
    ],
)
def test_a_reader_without_a_finder_reads_its_candidates_as_its_answer(reply, value, candidates):
    reader = Reader(parse=lambda segment: int(segment.split()[0].rstrip(".")), numbers=True)
    if isinstance(value, Refused):
        with pytest.raises(Unreadable, match=value.word):
            reader.read(reply)
        return
    assert (reader.read(reply).value, reader.read(reply).candidates) == (value, candidates)


def test_the_segment_is_what_the_value_was_read_from_stripped_and_short():
    assert read("bhive", "7 loads\n\nFinal answer: **1.68** cycles  \n").segment == "1.68 cycles"
    long = read("bhive", "words " * 100 + "1.68 cycles")
    assert long.value == 1.68 and long.segment == ("words " * 34)[:SEGMENT_CHARS]


def test_task_answer_reads_a_whole_reply_and_refuses_with_a_value_error():
    # Task.answer is the whole-reply reader the HTTP adapter calls
    assert get_task("bhive").answer("This x86-64 block takes about 1.68 cycles") == 1.68
    assert get_task("bugs").answer("<think>x < y or x <= y?</think>\nAnswer: 1") == 1
    assert get_task("names").answer("`get_value`") == get_task("names").label("get_value")
    with pytest.raises(ValueError, match="no number"):
        get_task("bhive").answer("I cannot tell.")
    assert all(isinstance(get_task(name).answer, Reader) for name in task_names())


def test_a_task_whose_answer_is_no_reader_parses_the_segment_with_it():
    task = replace(get_task("classify"), answer=str.upper)
    reading = read(task, "<think>hmm</think>\nfirst line\nAnswer: last one\n")
    assert (reading.value, reading.candidates, reading.segment) == ("LAST ONE", 1, "last one")


@pytest.mark.parametrize(
    "name, value", [("bhive", 2.25), ("names", ("get", "value")), ("bugs", 0), ("classify", "sorting")]
)
def test_each_shipped_prompt_has_one_placeholder_and_its_example_is_read(name, value):
    assert name in PROMPTED
    text = prompt(name)
    assert text.count("{program}") == 1 and text.count("{labels}") == (name == "classify")
    examples = [line for line in text.splitlines() if line.startswith("Answer:")]
    assert len(examples) == 1
    assert read(name, examples[0]).value == value
    # as the last line of a reply that reasons first, and by the Task itself
    reply = f"<think>7 instructions, x86-64</think>\nThe 3 loads matter.\n{examples[0]}\n"
    assert read(get_task(name), reply).value == value == get_task(name).answer(reply)


def test_a_task_without_a_shipped_prompt_is_a_usage_error():
    assert set(PROMPTED) == {"bhive", "names", "bugs", "classify", "exec"}
    for name in sorted(set(task_names()) - set(PROMPTED)):
        with pytest.raises(UsageError, match="bhive, names, bugs, classify, exec") as err:
            prompt(name)
        assert err.value.path == "--prompt"
    with pytest.raises(UsageError, match="unknown task"):
        prompt("nope")


PREFIXES = [
    "This x86-64 block takes about",
    "On Haswell (Intel 4th gen) with AVX2 and r10d, roughly",
    "Python 3.11.2 and llvm-mca 15.0.7 estimate",
    "The block has 7 instructions and 3 loads; it needs",
    "Haswell-E5 (x86_64, SSE4.2) runs it in",
    "Answer:",
    "<think>12 uops, 4 ports</think> About",
]
SUFFIXES = ["", ".", " per iteration.", " (steady state on Haswell-E5).", " on x86-64", "\n"]


@settings(max_examples=300, deadline=None)
@given(
    x=st.floats(min_value=1e-6, max_value=MAX_CYCLES, allow_nan=False, allow_infinity=False),
    prefix=st.sampled_from(PREFIXES),
    suffix=st.sampled_from(SUFFIXES),
    commas=st.booleans(),
)
def test_bhive_reads_a_throughput_among_numbers_inside_words(x, prefix, suffix, commas):
    written = f"{x:,}" if commas else repr(x)
    assert read("bhive", f"{prefix} {written} cycles{suffix}").value == x


#: ways of writing no single throughput: a reader must refuse each, whatever the numbers in it
NOT_ONE = [
    lambda a, b, k: f"{int(a)},{k % 100:02d} cycles",  # a decimal comma
    lambda a, b, k: f"{a:g} or {b:g} cycles",
    lambda a, b, k: f"{a:g} cycles (or {b:g} on Skylake)",
    lambda a, b, k: f"{k}/{k + 1} cycles",
    lambda a, b, k: f"{int(a)} {k % 7 + 1}/8 cycles",
    lambda a, b, k: f"at least {a:g} cycles",
    lambda a, b, k: f"< {a:g} cycles",
    lambda a, b, k: f"{a:g} cycles for {k + 2} iterations",
    lambda a, b, k: f"{a:g} cycles / {k + 2} iterations",
    lambda a, b, k: f"{a:g} cycles per instruction",
    lambda a, b, k: f"{a:g} cycles\n\nWait, I miscounted: it is {b:g} cycles.",
    lambda a, b, k: f"{a:g} cycles best case, {b:g} worst case",
    lambda a, b, k: f"{a:g} cycles at most",
    lambda a, b, k: f"> {a:g} cycles",
    lambda a, b, k: f"not {a:g} cycles but {b:g}",
    lambda a, b, k: f"{a:g} ns",
    lambda a, b, k: f"{k} * {k + 1} cycles",
]
#: the forms of NOT_ONE that give one number when both are the same
SAME_TWICE = (1, 2, 10, 11)


@settings(max_examples=300, deadline=None)
@given(
    a=st.floats(min_value=0.01, max_value=999, allow_nan=False).map(lambda v: round(v, 2)),
    b=st.floats(min_value=0.01, max_value=999, allow_nan=False).map(lambda v: round(v, 2)),
    k=st.integers(min_value=1, max_value=500),
    form=st.sampled_from(range(len(NOT_ONE))),
    prefix=st.sampled_from(["Answer: ", "The throughput is ", "**Answer:** ~"]),
)
def test_bhive_refuses_what_gives_no_single_throughput(a, b, k, form, prefix):
    if form in SAME_TWICE and a == b:
        return  # the same number twice is one answer
    if form == 10 and "Answer" not in prefix:  # no final answer: the last line, the correction, decides
        assert read("bhive", prefix + NOT_ONE[form](a, b, k)).value == b
        return
    with pytest.raises(Unreadable):
        read("bhive", prefix + NOT_ONE[form](a, b, k))


#: ways of giving a bugs verdict {v} explicitly, a sentence after it on the line or not
FINAL_VERDICTS = [
    "Answer: {v}",
    "Answer: {v}.",
    "**Answer:** {v}",
    "Final answer: `{v}`",
    "Answer: {v}. The loop reads each element once.",
    "Answer: {v}) The loop reads each element once.",
]
#: lines after the final answer that give no verdict, and lines of second thoughts that give verdict {w}
AFTERWARDS = [
    "",
    "\nThe loop reads each element once.",
    "\nActually, line 1 declares the sum.",
    "\nSo 3 loads.",
    # a 0 or 1 after words of second thoughts that is no bare verdict: prose
    "\nSo 0 is returned for an empty list.",
    "\nSo 1 call is made per element, as expected.",
    "\nHence 0 <= i < n holds.",
    "\nWell, 0 is never reached.",
]
SECOND_THOUGHTS = [
    "\nActually, {w}.",
    "\nSo {w}.",
    "\nWait, the answer is {w}.",
    "\nHmm, actually {w}",
    "\nOh. {w}",
    "\nUpdate: {w}",
    "\nI think {w}.",
    "\nBut {w}.",
    "\nLet me recompute: {w}",
]


@settings(max_examples=200, deadline=None)
@given(
    v=st.sampled_from([0, 1]),
    final=st.sampled_from(FINAL_VERDICTS),
    after=st.sampled_from(AFTERWARDS),
    second=st.sampled_from([None, *SECOND_THOUGHTS]),
)
def test_bugs_reads_its_final_verdict_and_refuses_second_thoughts(v, final, after, second):
    """A number right after the marker is the verdict, never a numbered
    list's mark; a line after it that gives the other verdict, however it
    opens, refuses the reply."""
    reply = final.format(v=v) + after + (second.format(w=1 - v) if second else "")
    if second is None:
        assert read("bugs", reply).value == v
    else:
        with pytest.raises(Unreadable, match="another answer"):
            read("bugs", reply)


#: a task's final answer, and another answer, as a line of second thoughts gives it
OTHER_ANSWERS = {
    "bhive": ("Answer: 3 cycles", "4 cycles."),
    "bugs": ("Answer: 0", "1."),
    "names": ("Answer: get_value", "`fetch_value`"),
    "classify": ("Answer: sorting", "searching."),
    "exec": ("Answer: 6", "7"),
}


@pytest.mark.parametrize("task", sorted(OTHER_ANSWERS))
@pytest.mark.parametrize("opener", answers.OPENERS)
def test_every_word_of_second_thoughts_opens_them_for_every_task(task, opener):
    """One list of the words that open second thoughts: each opens them
    after any task's final answer, and a reply cut at the token limit inside
    them (three letters or more) may have been about to give another answer."""
    final, other = OTHER_ANSWERS[task]
    with pytest.raises(Unreadable, match="another answer"):
        read(task, f"{final}\n{opener.capitalize()}: {other}")
    assert read(task, f"{final}\n{opener.capitalize()}: {final.split(': ')[1]}").value == read(task, final).value
    if len(opener) >= 3:
        with pytest.raises(Unreadable, match="in second thoughts"):
            read(task, f"{final}\n{opener[: max(3, len(opener) - 2)]}", truncated=True)


def test_numbers_are_whole_tokens():
    text = "x86-64 4th r10d AVX2 Haswell-E5 3.11.2 0x1f 2x -3 (-.5) 5-3 1,234.5 1.68e2 7% ±0.1 1."
    assert [n.value for n in answers.numbers(text)] == [-3.0, -0.5, 1234.5, 168.0, 1.0]
    # neither side of a decimal comma or of a fraction is a number of its own
    assert [n.value for n in answers.numbers("3,5 0,25 3/2 3 / 2 1 1/2 c/iter 2")] == [1.0, 2.0]


ALTERNATIVES = [  # what offers another answer beside the final one, after it; {other} is the task's other answer
    "Alternatively, {other}",
    "Or {other}",
    "(or {other})",
    "Other options: {other}",
    "Another possible answer: {other}",
    "A better answer might be {other}",
    "{other} would also work.",
    "It could also be {other}",
    "Also consider {other}",
    "{other} is also plausible.",
    "Alternatives: {other}",
    "**Alternatives:** {other}, total",
    "Also, {other} works too if it is a property.",
    "({other} works as well.)",
    "I'd also accept {other}",
    "Or possibly {other} if the call runs first.",
    "I'm not sure; it may be {other} on another reading.",
    "But {other} is equally plausible.",
    "I'd also consider {other}, since it fits the loop.",
    "Wait, no — the point is the table, so {other} fits better.",
    "I'd say {other} is also possible.",
]
KEPT_AFTER = [  # notes after a final answer that offer none
    "This could be verified by running it.",
    "It might be slightly different on another machine.",
    "Other names in the code are fine.",
    "Overall: {final}",
    "The loop works as well as a call to sum() would.",
    "It works too, for any iterable.",
    "Alternatives considered: none fit as well.",
    "No other answer fits as well.",
    "None of the other answers fits as well: they describe other code.",
    "A dict fits better here than a list.",
    "This answer fits better because it says what is returned.",
    "It may be worth noting that the loop runs once per item.",
    "It simply returns `self._value` — `property` would also work as a decorator here.",
]


@pytest.mark.parametrize("task", sorted(set(OTHER_ANSWERS) - {"bugs"}))
@pytest.mark.parametrize("form", ALTERNATIVES)
def test_an_alternative_after_the_final_answer_refuses_the_reply_unless_it_restates_it(task, form):
    """bugs is left out: what a bugs reply offers after its verdict is a fix (``Alternatively, use <=.``), and
    every verdict after the final one refuses it already (test_bugs_reads_its_final_verdict_…)."""
    final, other = OTHER_ANSWERS[task]
    with pytest.raises(Unreadable, match="another answer"):
        read(task, f"{final}\n\n{form.format(other=other)}")
    assert read(task, f"{final}\n\n{form.format(other=final.split(': ')[1])}").value == read(task, final).value


@pytest.mark.parametrize("task", sorted(OTHER_ANSWERS))
@pytest.mark.parametrize("note", KEPT_AFTER)
def test_a_note_after_the_final_answer_that_offers_none_is_no_alternative(task, note):
    final, _ = OTHER_ANSWERS[task]
    assert read(task, f"{final}\n\n{note.format(final=final.split(': ')[1])}").value == read(task, final).value


@pytest.mark.parametrize("task", sorted(set(OTHER_ANSWERS) - {"bugs"}))
@pytest.mark.parametrize("opener", ["Therefore", "In short", "So", "In summary"])
def test_a_conclusion_after_the_final_answer_that_differs_refuses_the_reply(task, opener):
    final, other = OTHER_ANSWERS[task]
    with pytest.raises(Unreadable, match="another answer"):
        read(task, f"{final}\n\n{opener}: {other}")
    assert read(task, f"{final}\n\n{opener}: {final.split(': ')[1]}").value == read(task, final).value


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("The loop is off by one.\nAnswer: 1\nTherefore: no.", Refused("another answer")),
        ("Answer: 0\n\nSo, yes.", Refused("another answer")),
        ("Answer: 1\nHence **yes**.", 1),
        ("Answer: 0\nThe answer is no.", 0),
        ("Answer: 1\nWell, no: the loop is fine.\nAnswer: 1", 1),  # ``well`` opens a retraction as often
        ("Answer: 1\nWait, no. Actually it is buggy.", 1),
        # after a question, a yes or no answers it, in its sense, not the prompt's
        ("Answer: 1\nIs the function correct?\nSo, no.", 1),
        ("Answer: 1\nAre there any other problems?\nSo, no.", 1),
        ("Answer: 0\nIs the function correct?\nTherefore, yes.", 0),
        ("Answer: 0\nIs there a bug?\nSo, yes.", Refused("another answer \\(1\\)")),
        ("Answer: 0\nIs the function correct?\nSo, no.", Refused("another answer \\(1\\)")),
        ("Answer: 1\nIs there a bug?\nSo, yes.", 1),
        ("Answer: 0\nAre there any other problems?\nSo, yes.", Refused("another answer \\(1\\)")),
        ("Answer: 0\nDoes it handle empty lists?\nSo, no.", 0),  # a question of no known sense gives none
        ("Answer: 1\nDoes the bug crash the program?\nSo, no.", 1),  # ... nor one about the bug found
    ],
)
def test_bugs_reads_a_bare_yes_or_no_after_a_conclusion_as_a_verdict(reply, expected):
    check("bugs", reply, expected)


@pytest.mark.parametrize(
    "task, ending, expected",
    [
        ("classify", "1. sorting\n2. searching", Refused("list of 2 items")),
        ("names", "Top candidates:\n- `has_item`\n- `contains`", Refused("list of 2 items")),
        ("names", "| candidate | score |\n|---|---|\n| mean | 0.9 |\n| avg | 0.7 |", Refused("list of 2 items")),
        ("bhive", "In short:\n- Front-end: 1.25 cycles\n- Dependency chain: 1 cycle", Refused("list of 2 items")),
        ("bhive", "- Front-end: 1.25 cycles\n- Ports: 0.75 cycles\n- Verdict: 1.25 cycles", 1.25),  # a key sums up
        ("bugs", "- Bounds: ok\n- Null: ok\n- Bug: no", 0),  # the items agree
        ("bhive", "- Front-end: 1.25 cycles\n- Ports: 1.0 cycles\n- **Overall: 1.25 cycles**", 1.25),
        ("bhive", "- Front-end: 1.25 cycles\n- Ports: 1.0 cycles\n- So 1.25 cycles", 1.25),
        ("classify", "- swaps adjacent items\n\nsorting", "sorting"),  # the list is done before the last line
        ("names", "| name |\n|---|\n| `compute_mean` |", ("compute", "mean")),  # one row
    ],
)
def test_a_reply_that_ends_in_a_list_of_several_answers_without_a_final_one_is_refused(task, ending, expected):
    reply = f"The code loops over a list.\n\n{ending}"
    if isinstance(expected, Refused):
        with pytest.raises(Unreadable, match=expected.word):
            read(task, reply)
    else:
        assert read(task, reply).value == expected


LABELS = ("binary_search", "sorting", "Sorting", 3, "divide and conquer", "none", "client/server", "sorting, stable")

ONE_OF = [
    ("sorting", "sorting"),  # as written
    ("Sorting", "Sorting"),
    ("binary_search", "binary_search"),
    ("Binary search", "binary_search"),  # case, spaces, - and _ aside, when that leaves one
    ("binary-search", "binary_search"),
    ("  BINARY   SEARCH ", "binary_search"),
    ("3", 3),  # a label that is no string, as JSON
    ("SORTING", Refused("none of the 8 labels")),  # two labels are sorting, case aside
    ("not sorting", Refused("none of the 8 labels")),
    ("O(n^2)", Refused("none of the 8 labels")),
    ("Sorts a list in place", Refused("none of the 8 labels")),
    ("searching", Refused("none of the 8 labels")),
]


@pytest.mark.parametrize("value, expected", ONE_OF)
def test_an_answer_is_one_of_the_offered_labels_or_refused(value, expected):
    if isinstance(expected, Refused):
        with pytest.raises(Unreadable, match=expected.word):
            answers.one_of(value, LABELS)
    else:
        assert answers.one_of(value, LABELS) == expected


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("It sorts.\nAnswer: Binary Search", "binary_search"),
        ("Answer: **3**", 3),
        # a label given as a whole is read before the task's own rules, which would refuse it
        ("Answer: divide and conquer", "divide and conquer"),  # else: two labels joined
        ("Answer: none", "none"),  # else: a placeholder
        ("Answer: `client/server`.", "client/server"),
        ("Answer: sorting, stable", "sorting, stable"),
        ('Answer: "Sorting"', "Sorting"),
        # the answers after the final one compare as labels
        ("Answer: binary_search\nActually, Binary search.", "binary_search"),
        ("Answer: binary_search\nActually, sorting.", Refused("another answer")),
        ("Answer: binary_search\n\nsearching", Refused("another answer")),  # another, though none offered
        ("Answer: not sorting", Refused("labels the prompt offered")),
        ("The loop nests twice.\nAnswer: O(n^2)", Refused("labels the prompt offered")),
    ],
)
def test_a_classify_reply_is_read_as_an_offered_label(reply, expected):
    check("classify", reply, expected, labels=LABELS)


NUMBERED = tuple(range(1, 105))
BUG_KINDS = ("none", "off_by_one", "overflow")


@pytest.mark.parametrize(
    "labels, reply, expected",
    [
        # second thoughts after the final answer give a label as a whole, whatever its shape
        (LABELS, "Answer: sorting\n\nActually, divide and conquer.", Refused("another answer")),
        (LABELS, "Answer: sorting\n\nWait, it's client/server.", Refused("another answer")),
        (LABELS, "Answer: sorting\n\nI think divide and conquer.", Refused("another answer")),
        (BUG_KINDS, "Answer: overflow\n\nActually, none.", Refused("another answer")),
        # without a final answer the last line keeps the task's own rules: a bare number there is no label
        (NUMBERED, "It prints:\n```\n3\n```", Refused("holds no word")),
        (NUMBERED, "The loop runs.\n\n42", Refused("holds no word")),
        (BUG_KINDS, "There is an off-by-one error.\n\nAre there other bugs?\nNone.", Refused("placeholder")),
        # nor is a line after the final answer read as a label unless it presents one
        (NUMBERED, "Answer: 17\n\nConfidence:\n80", 17),
        (BUG_KINDS, "Answer: off_by_one\n\nOther bugs?\nNone.", "off_by_one"),
        ((1.0, 2.0), "Answer: 1", 1.0),  # numbers by value
    ],
)
def test_labels_of_any_shape_are_read_where_an_answer_stands_and_nowhere_else(labels, reply, expected):
    check("classify", reply, expected, labels=labels)


def test_the_offered_labels_are_distinct_and_in_a_fixed_order():
    assert answers.offered(["b", None, "a", 10, "b", "3", [1, 2], 2, 1.5]) == (1.5, 2, "3", 10, [1, 2], "a", "b")
    assert answers.offered(["10", "9", "x"]) == ("9", "10", "x")  # numbers by value, as text too
    assert answers.offered([None]) == ()


@pytest.mark.parametrize(
    "labels, written",
    [
        (("a", 3), "The labels: a, 3"),
        (("sorting, stable", "identity"), 'The labels: "sorting, stable", "identity"'),  # a comma: each as JSON
        ((3, "3"), 'The labels: 3, "3"'),  # written alike
        (("排序", ""), 'The labels: "排序", ""'),
        (("", "a"), 'The labels: "", "a"'),
        ((), None),  # no labels: the line is left out
    ],
)
def test_the_labels_are_written_into_the_template_or_their_line_left_out(labels, written):
    template = "Classify it.\nThe labels: {labels}\n{program}\nAnswer: sorting\n"
    lines = ["Classify it."] + ([written] if written else []) + ["{program}", "Answer: sorting"]
    assert answers.with_labels(template, labels) == "\n".join(lines) + "\n"
