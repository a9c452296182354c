//! Unit tests of the element rules listed in the module docs of `scalar`.
