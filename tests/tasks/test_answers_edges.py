# ruff: noqa: E501  (replies are data, kept whole)
"""Replies at the edges of the readers' rules for what follows a final answer (alternatives, conclusions,
code after it) and for a reply that ends in a list: each read as a careful human reads it, or refused."""

import pytest

from invar.tasks.answers import Unreadable, read
from invar.tasks.exec import normal
from invar.tasks.names import label

#: notes, advice, restatements, summing list items, naming lines, helpers and tests after an answer: the
#: answer is read
KEPT = [
    ('bhive', 'Answer: 1.25 cycles\n\nOr, put differently, about 0.8 iterations per cycle.', 1.25),
    ('bhive', '**Answer: 2.5 cycles per iteration**\n\nOr, equivalently, 0.4 iterations per cycle.', 2.5),
    ('bhive', 'Answer: 2.00\n\nAlternatively, you could unroll the loop to hide the loop overhead.', 2.0),
    (
        'bhive',
        'Answer: 1.5\n\nOther options to speed this up: unrolling by 2, or using `vpaddd` on ymm registers.',
        1.5,
    ),
    (
        'bhive',
        'Answer: 3.0 cycles\n\nIt could also be bottlenecked by the front end on older cores, but on Haswell port pressure dominates.',
        3.0,
    ),
    ('bhive', 'Answer: 1.0\n\nThis would also be the throughput on Skylake, since the port layout is the same.', 1.0),
    ('bhive', 'Answer: 1.25 cycles\n\nNote: the divider could also be a bottleneck if the inputs are denormal.', 1.25),
    (
        'bhive',
        'Answer: 1.0\n\nMost people would expect 2 cycles here because of the dependency, but macro-fusion removes the extra uop.',
        1.0,
    ),
    (
        'bhive',
        'Answer: 1.0\n\nMost developers would write this loop with a pointer increment instead, which is equivalent.',
        1.0,
    ),
    (
        'bhive',
        'Answer: 0.75\n\nAnother option is that the loads are split across cache lines, which would make it slower.',
        0.75,
    ),
    ('bhive', 'Answer: 1.0\n\nThat could be the case on Ice Lake too.', 1.0),
    (
        'bhive',
        'Answer: 1.0 cycles/iteration\n\nIt might be 1.1 in practice due to the loop-stream detector, but 1.0 is the model estimate.',
        1.0,
    ),
    ('bhive', 'Answer: 2.0\n\nA better choice of instruction would be `lea`, which runs on two ports.', 2.0),
    ('bhive', 'Answer: 2.0\n\nIt could also be faster with `lea`.', 2.0),
    ('bhive', 'Answer: 5.0\n\nIt could be a store-forwarding issue that makes real measurements noisy.', 5.0),
    ('bhive', 'Answer: 1.0\n\n(Or 4 uops per iteration, at 4 uops per cycle.)', 1.0),
    (
        'bhive',
        'Bounds:\n- Port pressure: 1.0 cycles\n- Latency chain: 3 cycles\n- Bottleneck: the dependency chain → **3 cycles**',
        3.0,
    ),
    (
        'bhive',
        'Steps:\n1. Count uops: 4 fused.\n2. Port 0/1 pressure: 1.5 uops each.\n3. The bottleneck is ports 0 and 1, so the answer is 1.5 cycles per iteration.',
        1.5,
    ),
    (
        'bhive',
        'Analysis:\n- `imul` has latency 3 and is on the critical path\n- `add` latency 1\n- Prediction: 4 cycles per iteration',
        4.0,
    ),
    ('bhive', '- Bottleneck: port 5\n- Throughput: 1.5 cycles/iteration', 1.5),
    (
        'bhive',
        '1. The load has 5-cycle latency but is off the chain.\n2. The add chain is 1 cycle.\n3. Throughput ≈ 1 cycle per iteration.',
        1.0,
    ),
    (
        'bhive',
        'Breakdown:\n- Front end: 1.0\n- Ports: 0.75\n- Latency: 2.0\n- Max of the three: 2.0 cycles/iteration',
        2.0,
    ),
    ('bugs', 'Checklist:\n- Off-by-one: none\n- Null handling: fine\n- Verdict: no bug', 0),
    ('bugs', 'Checklist:\n- Off-by-one: `i <= n` reads past the end\n- Verdict: buggy', 1),
    ('bugs', 'Review:\n- Logic: correct\n- Style: could use a comprehension\n- Bug: no', 0),
    ('bugs', '| Check | Result |\n|---|---|\n| Bounds | OK |\n| Null | OK |\n| Buggy | No |', 0),
    ('bugs', '| Check | Result |\n|---|---|\n| Bounds | off by one |\n| Buggy | Yes |', 1),
    (
        'names',
        'Answer: `compute_mean`\n\nAlternatively, you could use `statistics.mean` from the standard library instead of writing this function.',
        'compute_mean',
    ),
    ('names', 'Answer: is_prime\n\nOr, in camelCase: `isPrime`.', 'is_prime'),
    (
        'names',
        'Answer: get_user_by_id\n\nOther options to consider: caching the result of the lookup.',
        'get_user_by_id',
    ),
    ('names', 'Answer: `find_max`\n\nThis would also work for tuples, since it only iterates.', 'find_max'),
    ('names', 'Answer: reverse_string\n\nIt could also be written with slicing: `s[::-1]`.', 'reverse_string'),
    (
        'names',
        'Answer: `count_vowels`\n\nThe name says what it does; most developers would understand it at a glance.',
        'count_vowels',
    ),
    (
        'names',
        'Answer: `compute_mean`\n\nAnother option: rename the parameter `xs` to `numbers` for clarity.',
        'compute_mean',
    ),
    ('names', 'Answer: `compute_total`\n\nA better name for the local variable `t` would be `total`.', 'compute_total'),
    ('names', 'Answer: merge_sorted\n\nThe helper it calls could also be inlined.', 'merge_sorted'),
    ('names', 'Answer: `binary_search`\n\nIt could also be implemented recursively.', 'binary_search'),
    (
        'names',
        'Answer: `is_empty`\n\nThe other options in the class (`size`, `clear`) follow the same style.',
        'is_empty',
    ),
    (
        'names',
        'Answer: `validate_email`\n\nNote: it returns `False` for addresses without a TLD — this could also be a bug.',
        'validate_email',
    ),
    (
        'names',
        'Answer: `read_lines`\n\nMost people would write this with `with open(...)`, which it does.',
        'read_lines',
    ),
    (
        'names',
        'My reasoning:\n1. The function sums the list.\n2. It divides by the length.\n3. So it computes the mean → `compute_mean`',
        'compute_mean',
    ),
    ('names', 'Analysis:\n- Purpose: compute the mean\n- Name: `compute_mean`', 'compute_mean'),
    (
        'names',
        'Analysis:\n- Input: a list of numbers\n- Output: their mean\n- **Name:** `compute_mean`',
        'compute_mean',
    ),
    ('names', '- What it does: checks membership\n- Suggested name: `contains`', 'contains'),
    ('names', '| Aspect | Value |\n|---|---|\n| Returns | bool |\n| Name | `is_empty` |', 'is_empty'),
    (
        'names',
        'Steps:\n1. Read the body: it loops and counts matches.\n2. The return is the count.\n3. A good name is `count_matches`.',
        'count_matches',
    ),
    (
        'names',
        "1. It iterates over `words`.\n2. It builds a dict of counts.\n3. I'd call it `word_frequencies`.",
        'word_frequencies',
    ),
    ('names', '`find_max` — it returns the largest element of the list.', 'find_max'),
    ('names', 'find_max (it compares each element and returns the largest)', 'find_max'),
    ('names', 'Name: `is_sorted` — checks whether each element is <= the next.', 'is_sorted'),
    ('names', "I'd go with `is_sorted`, since it checks the order of adjacent pairs.", 'is_sorted'),
    ('names', '`word_count` (it splits on whitespace and returns the length)', 'word_count'),
    ('names', 'It returns the sum of squares, hence `sum_of_squares`.', 'sum_of_squares'),
    ('names', 'It uses a stack to check bracket balance → `is_balanced`', 'is_balanced'),
    (
        'names',
        'Answer: `compute_mean`\n\nFull code:\n```python\ndef compute_mean(xs):\n    return _safe_div(sum(xs), len(xs))\n\ndef _safe_div(a, b):\n    return a / b if b else 0.0\n```',
        'compute_mean',
    ),
    (
        'names',
        'Answer: `compute_mean`\n\nAnd a quick test:\n```python\ndef test_compute_mean():\n    assert compute_mean([1, 2, 3]) == 2\n```',
        'compute_mean',
    ),
    (
        'names',
        'Answer: `flatten`\n\n```python\ndef flatten(items):\n    def _walk(x):\n        if isinstance(x, list):\n            for y in x:\n                yield from _walk(y)\n        else:\n            yield x\n    return list(_walk(items))\n```',
        'flatten',
    ),
    (
        'names',
        'Answer: `area`\n\n```python\nclass Circle:\n    def __init__(self, r):\n        self.r = r\n    def area(self):\n        return 3.14159 * self.r ** 2\n```',
        'area',
    ),
    (
        'classify',
        'Answer: sorting\n\nAlternatively, one could implement this with merge sort for better worst-case performance.',
        'sorting',
    ),
    (
        'classify',
        'Answer: dynamic programming\n\nThis could also be solved greedily, but the code uses a DP table.',
        'dynamic programming',
    ),
    ('classify', 'Answer: math\n\nThe function could also be used for other numeric types.', 'math'),
    (
        'classify',
        "Answer: hashing\n\nOther options in Python's hashlib (sha1, md5) would work the same way.",
        'hashing',
    ),
    ('classify', 'Answer: sorting\n\nMost programmers would recognise this as bubble sort.', 'sorting'),
    ('classify', 'Answer: io\n\nThis would also be the label for a function that writes files.', 'io'),
    (
        'classify',
        'Analysis:\n1. The outer loop runs n times.\n2. The inner loop swaps adjacent elements.\n3. Category: sorting',
        'sorting',
    ),
    ('classify', 'Evidence:\n- nested loops\n- adjacent swaps\n- → **sorting**', 'sorting'),
    ('classify', 'Evidence:\n- nested loops\n- adjacent swaps\n- Label: **sorting**', 'sorting'),
    ('classify', '| Feature | Present |\n|---|---|\n| swap | yes |\n| compare | yes |\n| Label | sorting |', 'sorting'),
    (
        'exec',
        'Answer: [2, 4]\n\nAlternatively, you can get the same result with `[x * 2 for x in xs if x < 3]`.',
        '[2, 4]',
    ),
    ('exec', 'Answer: \'abc\'\n\n(or "abc" — the same string)', "'abc'"),
    (
        'exec',
        'Answer: 10\n\nMost people would guess 9 here because of the off-by-one, but range(1, n + 1) includes n.',
        '10',
    ),
    ('exec', 'Answer: True\n\nIt could also be simplified to `return n % 2 == 0`.', 'True'),
    ('exec', "Answer: 'HELLO'\n\nAnother option is `s.upper()`, which does the same thing.", "'HELLO'"),
    (
        'exec',
        'Answer: [1, 2, 3]\n\nIt might be surprising that the list is unchanged, but `sorted` returns a new list.',
        '[1, 2, 3]',
    ),
    ('exec', 'Answer: 42\n\nThis could also be the answer to life, the universe and everything.', '42'),
    ('exec', 'Answer: 6\n\n```python\nassert f(3) == 6\nassert f(0) == 0\n```', '6'),
    ('exec', 'Answer: [2, 4]\n\nTests:\n```python\nassert f([1, 2, 3]) == [2, 4]\nassert f([]) == []\n```', '[2, 4]'),
    ('exec', 'Answer: [2, 4]\n\n```python\nassert len(f([1, 2, 3])) == 2\n```', '[2, 4]'),
    ('exec', 'Answer: True\n\n```python\nassert is_even(4) == True\nassert is_even(3) == False\n```', 'True'),
    ('exec', 'Answer: 6\n\n```python\nassert f(3) == 6\n```\n\n```python\nassert f(4) == 10\n```', '6'),
    ('bhive', '- Ports: 0.75\n- Latency: 1.0\n- → **1.0 cycles/iteration**', 1.0),
    ('bhive', '1. Front end: 1.0\n2. Ports: 1.25\n3. Answer: 1.25 cycles', 1.25),
    ('bhive', 'Answer: 1.0\n\n- Other options for speeding this up: none needed.', 1.0),
    ('bugs', 'Review:\n- Bounds: ok\n- Null: ok\n- **Verdict:** correct', 0),
    ('bugs', 'Review:\n- Bounds: `<=` overruns\n- Has bug: yes', 1),
    ('bugs', '1. `mid = (lo + hi) // 2` fine\n2. `hi = mid` can loop forever when lo = hi - 1\n3. Buggy.', 1),
    (
        'bugs',
        'Steps:\n1. Check base case: `n == 0` returns 1 ✔\n2. Check recursion: `n * f(n - 1)` ✔\n3. Verdict: **no bug**',
        0,
    ),
    ('names', 'Answer: `compute_mean`\n\nAlternatively, `computeMean` in Java style.', 'compute_mean'),
    ('names', 'Answer: `get_or_default`\n\nOr-ing the default is what the function avoids.', 'get_or_default'),
]

#: alternatives, candidate lists and tables, describing last lines, other definitions and claims: refused
REFUSED = [
    ('bhive', 'Answer: 2.0\n\n(or 2.5 cycles if the div is not pipelined)'),
    ('bhive', 'Answer: 3.00\n\nAlternatively, 3.5 cycles if the store forwarding stalls.'),
    ('bhive', 'Per-port load:\n- p0: 1\n- p1: 1\n- p5: 2'),
    ('bhive', 'Candidates:\n1. 1.0 cycles if fused\n2. 2.0 cycles if not'),
    ('bhive', 'Answer: 2.0\n\n```\n2.5\n```'),
    ('names', 'Answer: parse_config\n\n(or `parse_config_file` if you want to be more explicit)'),
    ('names', 'Answer: `to_celsius`\n\nOr `fahrenheit_to_celsius` for more clarity.'),
    ('names', 'Answer: `to_celsius`\n\nOr rather, `fahrenheit_to_celsius`.'),
    ('names', 'Answer: `is_empty`\n\nOther possible names: `empty`, `has_no_items`.'),
    ('names', 'Answer: `deduplicate`\n\nIt could also be `unique` — both are common.'),
    ('names', 'Answer: `deduplicate`\n\n(Or `dedupe`, which is the same name shortened.)'),
    ('names', 'Here are some candidate names:\n1. `calculate_average`\n2. `compute_mean`\n3. `average`'),
    ('names', '| Candidate | Score |\n|---|---|\n| compute_mean | 9 |\n| average | 7 |'),
    ('names', 'The function iterates over the list and keeps the largest element. It returns `max_val`.'),
    ('names', 'Answer: compute_mean\n\n```\naverage\n```'),
    ('names', 'Answer: `compute_mean`\n\n```python\ndef mean(xs):\n    return sum(xs) / len(xs)\n```'),
    ('classify', "Answer: recursion\n\n(Or 'backtracking' if that label exists.)"),
    ('classify', 'Answer: sorting\n\nA better fit might be `searching`.'),
    ('classify', 'Answer: sorting\n\nAlternatively: searching'),
    ('classify', 'Answer: sorting\n\nTherefore: searching'),
    ('classify', 'Possible labels:\n- sorting\n- searching'),
    ('classify', 'Answer: sorting\n\n```\nsearching\n```'),
    ('exec', 'Answer: 6\n\nOr 7 if the loop were inclusive.'),
    ('exec', 'Answer: [2, 4]\n\n```python\nassert f([1, 2, 3]) == [4]\n```'),
    ('exec', 'Answer: 6\n\n```\n7\n```'),
    ('bhive', 'Answer: 2.0\n\nTo summarize: 2.5 cycles'),
    ('bhive', 'Answer: 1.0\n\nTL;DR: 1.5 cycles'),
    ('classify', 'Answer: sorting\n\nTo summarize: searching'),
    ('classify', 'Answer: sorting\n\nBottom line: searching.'),
    ('exec', 'Answer: 6\n\n```python\nassert f(3) == 7\n```'),
]


def _expected(task: str, value):
    if task == "names":
        return label(value)
    if task == "exec":
        return normal(value)
    return {"bhive": float, "bugs": int}.get(task, str)(value)


@pytest.mark.parametrize("task, reply, expected", KEPT)
def test_an_edge_reply_with_one_answer_is_read(task, reply, expected):
    assert read(task, reply).value == _expected(task, expected)


@pytest.mark.parametrize("task, reply", REFUSED)
def test_an_edge_reply_that_offers_several_answers_is_refused(task, reply):
    with pytest.raises(Unreadable) as err:
        read(task, reply)
    assert "\n" not in str(err.value)
