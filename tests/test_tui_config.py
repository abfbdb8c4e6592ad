"""The config file's pure logic: keymap validation (clash, unknown id), bad TOML, saving the theme.

No Textual here: the binding table is written out as the app would hand it over."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sitemap_tui.tui.config import load_config, save_theme, with_theme
from sitemap_tui.tui.keymap_check import BindingSpec, check_keymap, normalize_key

SPECS = [
    BindingSpec("expand_all", ("e",), "Expand all", "app"),
    BindingSpec("export", ("s",), "Export", "app"),
    BindingSpec("help", ("question_mark", "f1"), "Help", "app"),
    BindingSpec(None, ("ctrl+q",), "Quit", "app"),
    BindingSpec("url_table.sort", ("s",), "Sort", "url_table"),
]
SOURCE = "/home/u/.config/sitemap-tui/config.toml"


def test_a_key_stolen_from_another_action_is_not_applied_and_said():
    applied, problems = check_keymap({"export": "e"}, SPECS, SOURCE)
    assert applied == {}
    assert len(problems) == 1
    msg = problems[0]
    assert SOURCE in msg and "export" in msg and "expand_all" in msg and '"e"' in msg
    assert "keeps" in msg  # says which one wins


def test_a_freed_key_can_be_taken_and_other_scopes_do_not_clash():
    keymap = {"expand_all": "E", "export": "e", "url_table.sort": "o"}
    applied, problems = check_keymap(keymap, SPECS, SOURCE)
    assert problems == []
    assert applied == keymap


def test_two_entries_on_one_key_the_first_in_the_file_wins():
    applied, problems = check_keymap({"expand_all": "x", "export": "x,S"}, SPECS, SOURCE)
    assert applied == {"expand_all": "x", "export": "S"}
    assert len(problems) == 1 and "first" in problems[0]


def test_a_key_held_by_a_binding_without_id_is_a_clash():
    applied, problems = check_keymap({"export": "ctrl+q"}, SPECS, SOURCE)
    assert applied == {} and "Quit" in problems[0]


def test_a_lost_key_returns_to_its_default_and_that_default_wins():
    # expand_all's only key clashes, so it keeps "e"; export then cannot have "e" either
    applied, problems = check_keymap({"expand_all": "ctrl+q", "export": "e"}, SPECS, SOURCE)
    assert applied == {}
    assert len(problems) == 2 and "Quit" in problems[0] and "expand_all" in problems[1]
    # a swap is fine: each frees the key the other takes
    applied, problems = check_keymap({"expand_all": "s", "export": "e"}, SPECS, SOURCE)
    assert applied == {"expand_all": "s", "export": "e"} and problems == []


def test_key_spellings_are_compared_as_textual_does():
    assert normalize_key("?") == "question_mark"
    assert normalize_key("/") == "slash"
    assert normalize_key("E") == "E"
    applied, problems = check_keymap({"export": "?"}, SPECS, SOURCE)
    assert applied == {} and "help" in problems[0]


def test_an_unknown_action_id_is_named_with_the_nearest_valid_one():
    applied, problems = check_keymap({"expand_al": "E"}, SPECS, SOURCE)
    assert applied == {}
    assert "expand_al" in problems[0] and "expand_all" in problems[0] and SOURCE in problems[0]
    _, problems = check_keymap({"zzzz": "E"}, SPECS, SOURCE)
    assert "zzzz" in problems[0] and "did you mean" not in problems[0]


def test_bad_toml_is_a_problem_that_names_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n[keymap\nexport = "e"\n')
    cfg = load_config(path)
    assert cfg.keymap == {} and cfg.theme is None
    assert len(cfg.problems) == 1 and str(path) in cfg.problems[0] and "line 2" in cfg.problems[0]
    assert cfg.broken


def test_with_theme_keeps_the_rest_of_the_file():
    text = '# mine\ntheme = "nord"  # dark\n\n[keymap]\ntheme = "x"\n'
    out = with_theme(text, "textual-light")
    assert tomllib.loads(out)["theme"] == "textual-light"
    assert tomllib.loads(out)["keymap"] == {"theme": "x"} and out.startswith("# mine\n")
    out = with_theme("[keymap]\nexport = \"S\"\n", "gruvbox")
    assert tomllib.loads(out) == {"theme": "gruvbox", "keymap": {"export": "S"}}
    assert tomllib.loads(with_theme("", 'we"ird'))["theme"] == 'we"ird'


def test_save_theme_writes_atomically_and_creates_the_folder(tmp_path):
    path = tmp_path / "sub" / "config.toml"
    assert save_theme(path, "nord") is None
    assert load_config(path).theme == "nord"
    path.write_text('theme = "nord"\n[keymap]\nexport = "S"\n')
    assert save_theme(path, "textual-light") is None
    cfg = load_config(path)
    assert cfg.theme == "textual-light" and cfg.keymap == {"export": "S"}
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temp file left


def test_a_write_error_is_returned_not_raised(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")  # a file where the config folder should be: works even as root
    problem = save_theme(blocker / "config.toml", "nord")
    assert problem is not None and "config.toml" in problem and "nord" in problem


def test_a_broken_file_is_not_overwritten(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("theme = [\n")
    problem = save_theme(path, "nord")
    assert problem is not None and "not saved" in problem
    assert path.read_text() == "theme = [\n"
    assert Path(path).exists()


def test_a_key_no_terminal_reports_is_not_applied_and_said():
    """Found from outside: "F5", "Ctrl+T" or "ctrl-s" took the action's default key away and gave
    it one that is never pressed, without a word."""
    for keys in ("F5", "Ctrl+T", "ctrl-s", "e,Slash"):
        applied, problems = check_keymap({"export": keys}, SPECS, SOURCE)
        assert applied == {} and len(problems) == 1, keys
        assert SOURCE in problems[0] and "keymap.export" in problems[0] and "keeps its default key" in problems[0]
    assert check_keymap({"export": "f5,ctrl+shift+x,pageup"}, SPECS, SOURCE) == ({"export": "f5,ctrl+shift+x,pageup"}, [])
    # Textual's names of characters whose Unicode name has a hyphen; an alias is no such name
    keys = "greater_than_sign,ctrl+less_than_sign,full_stop,é"
    assert check_keymap({"export": keys}, SPECS, SOURCE) == ({"export": keys}, [])
    assert check_keymap({"export": "esc"}, SPECS, SOURCE)[0] == {}


def test_unknown_settings_are_said(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('them = "nord"\n[keymaps]\nexpand_all = "g"\n[cache]\nmax_sise = 1\n')
    cfg = load_config(path)
    assert any("'them'" in p and "did you mean 'theme'" in p for p in cfg.problems), cfg.problems
    assert any("'keymaps'" in p and "did you mean 'keymap'" in p for p in cfg.problems), cfg.problems
    from sitemap_tui.session.recent import load_limits

    assert any("cache.max_sise: no such limit" in p for p in load_limits(path).problems)


def test_a_quoted_theme_key_is_rewritten_not_doubled(tmp_path):
    """Found from outside: `"theme" = "nord"` got a second theme line, and the file no longer parsed."""
    path = tmp_path / "config.toml"
    path.write_text('"theme" = "nord"\n[keymap]\nexpand_all = "g"\n')
    assert save_theme(path, "textual-light") is None
    assert tomllib.loads(path.read_text()) == {"theme": "textual-light", "keymap": {"expand_all": "g"}}


def test_an_app_key_a_focused_widget_binds_is_applied_and_said():
    """Found from outside: expand_all = "space" collapsed the tree's node (the tree's own key wins
    while it has the focus), unsaid."""
    specs = [*SPECS, BindingSpec(None, ("space",), "Toggle", "SitemapTree"), BindingSpec(None, ("x",), "Yes", "ConfirmScreen")]
    applied, problems = check_keymap({"expand_all": "space"}, specs, SOURCE)
    assert applied == {"expand_all": "space"}
    assert problems == [f"{SOURCE}: keymap.expand_all: key \"space\" is also 'Toggle' in the tree, which takes it"
                        " while it has the focus"]
    assert check_keymap({"expand_all": "x"}, specs, SOURCE) == ({"expand_all": "x"}, [])  # (a dialog's keys are modal)


def test_a_dotted_binding_id_may_be_written_quoted_or_not(tmp_path):
    """Unquoted, TOML reads url_table.sort as a table holding sort: that is the id the user meant."""
    path = tmp_path / "config.toml"
    path.write_text('[keymap]\nurl_table.sort = "o"\n"url_table.restore_marks" = "ctrl+y"\nexpand_all = "E"\n')
    cfg = load_config(path)
    assert cfg.problems == []
    assert cfg.keymap == {"url_table.sort": "o", "url_table.restore_marks": "ctrl+y", "expand_all": "E"}
