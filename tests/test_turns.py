"""A batch's CPU-heavy steps take turns of its event loop (:mod:`leadengine.batch.turns`): one
step a turn, in the order asked, so the loop reads its sockets between two steps."""

from __future__ import annotations

import asyncio
import itertools

from leadengine.batch.turns import ASSEMBLE, JUDGE, READ, Turns


async def _ticking(ticks: list[int]) -> asyncio.Handle:
    """Count the loop's turns: a callback that schedules itself again each turn."""
    loop = asyncio.get_running_loop()

    def tick() -> None:
        ticks[0] += 1
        holder[0] = loop.call_soon(tick)

    holder = [loop.call_soon(tick)]
    await asyncio.sleep(0)
    return holder[0]


def test_steps_run_one_per_loop_turn_in_the_order_asked() -> None:
    async def main() -> tuple[list[tuple[str, int]], list[int]]:
        ticks, ran = [0], []
        await _ticking(ticks)
        turns = Turns()

        async def step(name: str) -> None:
            await turns.take()
            ran.append((name, ticks[0]))

        await asyncio.gather(*(step(name) for name in "abcd"))
        # Without turns, the four steps run in one turn of the loop.
        together: list[int] = []

        async def plain() -> None:
            await asyncio.sleep(0)
            together.append(ticks[0])

        await asyncio.gather(*(plain() for _ in range(4)))
        return ran, together

    ran, together = asyncio.run(main())
    assert [name for name, _ in ran] == ["a", "b", "c", "d"]
    seen = [tick for _, tick in ran]
    # A turn apart: the turn between two steps runs what their polls made ready.
    assert all(later >= earlier + 2 for earlier, later in itertools.pairwise(seen)), seen
    assert len(set(together)) == 1


def test_a_step_cancelled_while_it_waits_does_not_hold_the_others() -> None:
    async def main() -> list[str]:
        turns, ran = Turns(), []

        async def step(name: str) -> None:
            await turns.take()
            ran.append(name)

        first = asyncio.create_task(step("a"))
        doomed = asyncio.create_task(step("b"))
        last = asyncio.create_task(step("c"))
        await asyncio.sleep(0)  # all three are waiting for their turn
        doomed.cancel()
        await asyncio.gather(first, last)
        # Turns are granted again later (the granting stopped when none waited).
        await step("d")
        return ran

    assert asyncio.run(main()) == ["a", "c", "d"]


def test_a_step_further_along_goes_before_steps_asked_earlier() -> None:
    # A site's assembly and judging go before other sites' page reads asked before them:
    # a site is finished (and its LLM request sent) before the next pages are read.
    async def main() -> list[str]:
        turns, ran = Turns(), []

        async def step(name: str, stage: int) -> None:
            await turns.take(stage)
            ran.append(name)

        tasks = [asyncio.create_task(step(f"read{i}", READ)) for i in range(3)]
        await asyncio.sleep(0)  # the reads wait; the first is granted next
        tasks += [asyncio.create_task(step("judge", JUDGE)),
                  asyncio.create_task(step("assemble", ASSEMBLE)),
                  asyncio.create_task(step("judge2", JUDGE))]
        await asyncio.gather(*tasks)
        return ran

    assert asyncio.run(main()) == ["read0", "judge", "judge2", "assemble", "read1", "read2"]
