import pytest
from toy_suite_plugin import install_toy_plugin


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory):
    """A folder to put on the path: the toy plugin package (test/toy_suite_plugin.py)."""
    return install_toy_plugin(tmp_path_factory.mktemp("plugins"))
