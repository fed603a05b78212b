from tests.discord_app.harness import Harness


async def test_quiz(harness: Harness) -> None:
    d = await harness.slash("quiz", kind="why")
    print(d.callback.body)
    click = d.reply["components"][0]["components"][0]["custom_id"]
    c = await harness.click(d.reply, click)
    print(c.modal)
    s = await harness.submit(c.modal, "The graph is freed after backward.")
    print(s.reply)
