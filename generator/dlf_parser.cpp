#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "generator/dlf.h"
#include "generator/infer_types.h"
#include "generator/op_spec.h"
#include "generator/verify.h"

namespace dlfuzz {

std::string ParseError::str() const { return fmt::format("{}:{}:{}: {}", file, line, column, message); }

namespace {

struct Token {
  enum Kind { ident, value, number, string, punct, end } kind = end;
  std::string text;
  int col = 0;
};

struct Failure {
  int col;
  std::string msg;
};

// Splits one line into tokens; '#' starts a comment.
std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  while (i < s.size()) {
    char c = s[i];
    int col = static_cast<int>(i) + 1;
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') break;
    if (c == '%') {
      size_t j = i + 1;
      while (j < s.size() && is_ident(s[j])) ++j;
      if (j == i + 1) throw Failure{col, "expected a value name after '%'"};
      out.push_back({Token::value, s.substr(i + 1, j - i - 1), col});
      i = j;
    } else if (c == '"') {
      std::string text;
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') {
        if (s[j] == '\\' && j + 1 < s.size()) ++j;
        text += s[j++];
      }
      if (j >= s.size()) throw Failure{col, "unterminated string"};
      out.push_back({Token::string, text, col});
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() &&
                (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s.compare(i + 1, 3, "inf") == 0))) {
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                              ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      out.push_back({Token::number, s.substr(i, j - i), col});
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && is_ident(s[j])) ++j;
      std::string w = s.substr(i, j - i);
      out.push_back({w == "inf" || w == "nan" ? Token::number : Token::ident, w, col});
      i = j;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      out.push_back({Token::punct, "->", col});
      i += 2;
    } else if (std::string("=:,[](){}").find(c) != std::string::npos) {
      out.push_back({Token::punct, std::string(1, c), col});
      ++i;
    } else {
      throw Failure{col, fmt::format("unexpected character '{}'", c)};
    }
  }
  out.push_back({Token::end, "", static_cast<int>(s.size()) + 1});
  return out;
}

class LineParser {
 public:
  LineParser(std::vector<Token> t) : t_(std::move(t)) {}
  const Token& peek(int k = 0) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
  Token next() { return t_[std::min(pos_++, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::end; }
  bool accept(const std::string& punct) {
    if (peek().kind == Token::punct && peek().text == punct) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(const std::string& punct) {
    if (!accept(punct)) fail(fmt::format("expected '{}'", punct));
  }
  std::string ident(const std::string& what) {
    if (peek().kind != Token::ident) fail("expected " + what);
    return next().text;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    const Token& t = peek();
    throw Failure{t.col, t.kind == Token::end ? msg + " at end of line" : fmt::format("{}, found '{}'", msg, t.text)};
  }
  int col() const { return peek().col; }

 private:
  std::vector<Token> t_;
  size_t pos_ = 0;
};

double parse_double(const std::string& s, int col) {
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  if (s == "nan") return NAN;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw Failure{col, "malformed number '" + s + "'"};
  return d;
}

int64_t parse_int(const std::string& s, int col) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || s.empty()) throw Failure{col, "malformed integer '" + s + "'"};
  return v;
}

bool is_int_text(const std::string& s) { return s.find_first_of(".eEn") == std::string::npos; }

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : file_(file) {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) lines_.push_back(l);
  }

  ParseResult run(ParseMode mode) {
    ParseResult r;
    try {
      parse();
      r.program = std::move(p_);
      std::string e = verify(r.program);
      if (!e.empty() && mode == ParseMode::repair && infer_types(r.program).empty() && verify(r.program).empty())
        r.repaired = true;
      else if (!e.empty()) r.error = ParseError{file_, node_line(e), 1, e};
    } catch (const Failure& f) {
      r.error = ParseError{file_, line_no_, f.col, f.msg};
    }
    return r;
  }

 private:
  // Verification errors name a value; point at the line that defines it.
  int node_line(const std::string& msg) {
    auto pos = msg.find('%');
    if (pos == std::string::npos) return line_no_;
    size_t end = msg.find_first_of(" ):", pos);
    std::string name = msg.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
    auto it = def_line_.find(name);
    return it == def_line_.end() ? line_no_ : it->second;
  }

  bool next_line(LineParser& lp) {
    while (line_idx_ < lines_.size()) {
      line_no_ = static_cast<int>(++line_idx_);
      LineParser cand(tokenize(lines_[line_idx_ - 1]));
      if (!cand.at_end()) {
        lp = std::move(cand);
        return true;
      }
    }
    line_no_ = static_cast<int>(lines_.size()) + 1;
    return false;
  }

  TensorType type(LineParser& lp) {
    std::string dt = lp.ident("a dtype");
    auto t = dtype_from_name(dt);
    if (!t) throw Failure{lp.col() - int(dt.size()) - 1, "unknown dtype '" + dt + "'"};
    TensorType tt{*t, {}};
    lp.expect("[");
    if (!lp.accept("]")) {
      do {
        if (lp.peek().kind != Token::number) lp.fail("expected a dimension size");
        int col = lp.col();
        int64_t d = parse_int(lp.next().text, col);
        if (d < 0) throw Failure{col, "negative dimension size"};
        tt.shape.push_back(d);
      } while (lp.accept(","));
      lp.expect("]");
    }
    if (size_bound(tt.shape) > kMaxElements)
      throw Failure{lp.col(), fmt::format("tensor type {} is too large (over 2^40 elements)", type_str(tt))};
    return tt;
  }

  int define(const std::string& name, const TensorType& t, int col) {
    if (names_.count(name)) throw Failure{col, "value %" + name + " is already defined"};
    int id = p_.add_value(name, t);
    names_[name] = id;
    def_line_[name] = line_no_;
    return id;
  }

  int use(LineParser& lp) {
    if (lp.peek().kind != Token::value) lp.fail("expected a value");
    Token t = lp.next();
    auto it = names_.find(t.text);
    if (it == names_.end()) throw Failure{t.col, "unknown value %" + t.text};
    return it->second;
  }

  ArgValue literal(LineParser& lp) {
    const Token& t = lp.peek();
    int col = t.col;
    if (t.kind == Token::value) return ValueRef{use(lp)};
    if (t.kind == Token::number) {
      std::string s = lp.next().text;
      if (is_int_text(s)) return parse_int(s, col);
      return parse_double(s, col);
    }
    if (t.kind == Token::string) return lp.next().text;
    if (t.kind == Token::ident) {
      std::string w = lp.next().text;
      if (w == "None") return None{};
      if (w == "item") {  // item(%v): the Python number of a 0-d value
        lp.expect("(");
        ValueRef r{use(lp), true};
        lp.expect(")");
        return r;
      }
      if (w == "true") return true;
      if (w == "false") return false;
      if (auto d = dtype_from_name(w)) return *d;
      if (w == "contiguous_format") return MemFormat::contiguous;
      if (w == "channels_last") return MemFormat::channels_last;
      if (w == "preserve_format") return MemFormat::preserve;
      throw Failure{col, "unknown literal '" + w + "'"};
    }
    if (lp.accept("[")) {
      if (lp.accept("]")) return IntList{};
      if (lp.peek().kind == Token::value) {
        ValueList l;
        do l.ids.push_back(use(lp));
        while (lp.accept(","));
        lp.expect("]");
        return l;
      }
      IntList l;
      do {
        if (lp.peek().kind != Token::number) lp.fail("expected an integer");
        int c = lp.col();
        l.push_back(parse_int(lp.next().text, c));
      } while (lp.accept(","));
      lp.expect("]");
      return l;
    }
    lp.fail("expected an argument");
  }

  void header() {
    LineParser lp({});
    if (!next_line(lp)) throw Failure{1, "empty file: expected a 'dlfuzz' header"};
    if (lp.ident("the 'dlfuzz' header") != "dlfuzz") throw Failure{1, "expected the 'dlfuzz' header"};
    if (lp.peek().kind != Token::number) lp.fail("expected a format version");
    int col = lp.col();
    p_.version = static_cast<int>(parse_int(lp.next().text, col));
    if (p_.version != kFormatVersion)
      throw Failure{
          col, fmt::format("format version {} is not supported (this dlfuzz reads {})", p_.version, kFormatVersion)};
    bool train = false;
    while (!lp.at_end()) {
      int kcol = lp.col();
      std::string key = lp.ident("a header field");
      lp.expect("=");
      Token v = lp.next();
      if (key == "seed") p_.seed = std::strtoull(v.text.c_str(), nullptr, 10);
      else if (key == "policy") p_.policy_hash = std::strtoull(v.text.c_str(), nullptr, 16);
      else if (key == "mode") {
        if (v.text != "train" && v.text != "infer") throw Failure{v.col, "mode must be train or infer"};
        train = v.text == "train";
      } else if (key == "device") p_.device = v.text;
      else if (key == "world") {
        int64_t world = parse_int(v.text, v.col);
        if (world < 1 || world > 1024) throw Failure{v.col, "world must be between 1 and 1024"};
        p_.plan.world = static_cast<int>(world);
      }
      else if (key == "plan") {
        bool found = false;
        for (auto k : {PlanKind::none, PlanKind::dp, PlanKind::tp, PlanKind::zero})
          if (v.text == plan_name(k)) p_.plan.kind = k, found = true;
        if (!found) throw Failure{v.col, "unknown plan '" + v.text + "'"};
      } else if (key == "target") {
        bool found = false;
        for (auto t : {Target::torch113, Target::torch2})
          if (v.text == target_name(t)) p_.target = t, found = true;
        if (!found) throw Failure{v.col, "unknown target '" + v.text + "' (torch1.13 or torch2)"};
      } else if (key == "autocast") {
        auto t = dtype_from_name(v.text);
        if (!t || (*t != DType::bf16 && *t != DType::f16)) throw Failure{v.col, "autocast must be bf16 or f16"};
        p_.autocast = t;
      } else {
        throw Failure{kcol, "unknown header field '" + key + "'"};
      }
    }
    if (train) p_.train = TrainStep{};
  }

  void input(LineParser& lp, InputKind kind) {
    int col = lp.col();
    if (lp.peek().kind != Token::value) lp.fail("expected a value name");
    std::string name = lp.next().text;
    lp.expect(":");
    TensorType t = type(lp);
    InputDecl d;
    d.kind = kind;
    d.value = define(name, t, col);
    bool has_init = false;  // a second initializer would leave the first one's bounds behind
    while (!lp.at_end()) {
      int c = lp.col();
      std::string w = lp.ident("an input attribute");
      auto set_init = [&](Init init) {
        if (has_init) throw Failure{c, "input " + name + " has a second initializer '" + w + "'"};
        has_init = true;
        d.init = init;
      };
      if (w == "channels_last") d.layout = Layout::channels_last;
      else if (w == "strided") d.layout = Layout::strided;
      else if (w == "zeros") set_init(Init::zeros);
      else if (w == "ones") set_init(Init::ones);
      else if (w == "shard") {
        lp.expect("(");
        int dc = lp.col();
        d.placement.shard_dim = static_cast<int>(parse_int(lp.next().text, dc));
        if (lp.accept(",")) {  // uneven: the whole size along the dim
          int wc = lp.col();
          d.placement.whole = parse_int(lp.next().text, wc);
        }
        lp.expect(")");
      } else if (w == "range" || w == "normal" || w == "special" || w == "ints" || w == "decimals") {
        set_init(w == "range"     ? Init::uniform
                 : w == "normal"  ? Init::normal
                 : w == "special" ? Init::special
                 : w == "ints"    ? Init::ints
                                  : Init::decimals);
        lp.expect("(");
        int c1 = lp.col();
        d.lo = parse_double(lp.next().text, c1);
        lp.expect(",");
        int c2 = lp.col();
        d.hi = parse_double(lp.next().text, c2);
        lp.expect(")");
      } else {
        throw Failure{c, "unknown input attribute '" + w + "'"};
      }
    }
    p_.inputs.push_back(d);
  }

  // Parses "%a : T, %b : T = op args" or a structural line; returns false at '}'.
  void node(LineParser& lp, Block& into) {
    std::vector<std::pair<std::string, TensorType>> outs;
    std::vector<int> out_cols;
    if (lp.peek().kind == Token::value) {
      do {
        out_cols.push_back(lp.col());
        std::string name = use_name(lp);
        lp.expect(":");
        outs.push_back({name, type(lp)});
      } while (lp.accept(","));
      lp.expect("=");
    }
    int op_col = lp.col();
    std::string op = lp.ident("an op name");
    const OpSpec* spec = find_op(op);
    if (!spec && !is_structural(op)) throw Failure{op_col, "unknown op '" + op + "'"};
    Node n;
    n.op = op;
    size_t positional = 0;
    while (!lp.at_end() && !(lp.peek().kind == Token::punct && (lp.peek().text == "{" || lp.peek().text == "("))) {
      if (!n.args.empty() || positional) lp.expect(",");
      // A name before `=`; nan_to_num's `nan=` reads as the number nan otherwise.
      const bool named = lp.peek().kind == Token::ident || lp.peek().text == "nan" || lp.peek().text == "inf";
      if (named && lp.peek(1).kind == Token::punct && lp.peek(1).text == "=") {
        std::string name = lp.next().text;
        lp.expect("=");
        n.args.push_back({name, literal(lp)});
      } else {
        int c = lp.col();
        if (!spec) throw Failure{c, op + " takes named arguments only"};
        // Positional arguments fill the spec's positional params in order.
        const ParamSpec* ps = nullptr;
        size_t k = 0;
        for (const auto& prm : spec->params)
          if (prm.positional && k++ == positional) {
            ps = &prm;
            break;
          }
        if (!ps) throw Failure{c, fmt::format("{} takes at most {} positional arguments", op, k)};
        ++positional;
        n.args.push_back({ps->name, literal(lp)});
      }
    }
    // Outputs are defined after the arguments are read (they can't refer to themselves).
    for (size_t i = 0; i < outs.size(); ++i) n.outputs.push_back(define(outs[i].first, outs[i].second, out_cols[i]));
    // `inputs=[]` reads as an empty int list: a checkpoint with no arguments.
    if (Arg* in = n.arg("inputs");
        in && op == "checkpoint" && std::holds_alternative<IntList>(in->value) && std::get<IntList>(in->value).empty())
      in->value = ValueList{};
    if (op == "loop" || op == "checkpoint") {
      n.blocks.resize(1);
      lp.expect("(");
      if (!lp.accept(")")) {
        do {
          int c = lp.col();
          std::string name = use_name(lp);
          lp.expect(":");
          n.blocks[0].params.push_back(define(name, type(lp), c));
        } while (lp.accept(","));
        lp.expect(")");
      }
      lp.expect("{");
      if (!lp.at_end()) lp.fail("expected end of line after '{'");
      block(n.blocks[0], false);
    } else if (op == "if") {
      n.blocks.resize(2);
      lp.expect("{");
      if (!lp.at_end()) lp.fail("expected end of line after '{'");
      if (!block(n.blocks[0], true)) throw Failure{1, "expected '} else {' after the then-block"};
      block(n.blocks[1], false);
    } else if (!lp.at_end()) {
      lp.fail("expected end of line");
    }
    into.nodes.push_back(std::move(n));
  }

  std::string use_name(LineParser& lp) {
    if (lp.peek().kind != Token::value) lp.fail("expected a value name");
    return lp.next().text;
  }

  std::vector<int> value_list(LineParser& lp) {
    std::vector<int> ids;
    if (lp.at_end()) return ids;
    do ids.push_back(use(lp));
    while (lp.accept(","));
    if (!lp.at_end()) lp.fail("expected end of line");
    return ids;
  }

  // Reads block lines up to '}' (or '} else {' when allow_else; returns true then).
  bool block(Block& b, bool allow_else) {
    LineParser lp({});
    while (next_line(lp)) {
      if (lp.accept("}")) {
        if (lp.at_end()) return false;
        if (allow_else && lp.peek().text == "else") {
          lp.next();
          lp.expect("{");
          return true;
        }
        lp.fail("expected end of line after '}'");
      }
      if (lp.peek().kind == Token::ident && lp.peek().text == "yield") {
        lp.next();
        b.yields = value_list(lp);
        continue;
      }
      node(lp, b);
    }
    throw Failure{1, "unexpected end of file: missing '}'"};
  }

  void parse() {
    header();
    LineParser lp({});
    bool returned = false;
    while (next_line(lp)) {
      const Token& t = lp.peek();
      if (t.kind == Token::ident && (t.text == "input" || t.text == "param" || t.text == "target")) {
        std::string k = lp.next().text;
        input(lp, k == "input" ? InputKind::data : k == "param" ? InputKind::param : InputKind::target);
      } else if (t.kind == Token::ident && t.text == "return") {
        lp.next();
        p_.body.yields = value_list(lp);
        returned = true;
      } else if (t.kind == Token::ident && t.text == "loss") {
        lp.next();
        if (!p_.train) throw Failure{t.col, "'loss' in a program whose header says mode=infer"};
        p_.train->loss = use(lp);
      } else if (t.kind == Token::ident && t.text == "step") {
        lp.next();
        step(lp);
      } else if (returned) {
        lp.fail("expected 'loss' or 'step' after 'return'");
      } else {
        node(lp, p_.body);
      }
    }
    if (!returned) throw Failure{1, "missing 'return' line"};
    if (p_.train && p_.train->loss < 0) throw Failure{1, "mode=train but no 'loss' line"};
  }

  static bool parse_flag(const std::string& v, int col) {
    if (v != "true" && v != "false") throw Failure{col, "expected true or false, not '" + v + "'"};
    return v == "true";
  }

  void step(LineParser& lp) {
    if (!p_.train) lp.fail("'step' in a program whose header says mode=infer");
    int c = lp.col();
    std::string opt = lp.ident("an optimizer");
    bool found = false;
    for (int k = 0; k < kOptimizerCount; ++k)
      if (opt == optimizer_name(static_cast<Optimizer>(k))) p_.train->optimizer = static_cast<Optimizer>(k), found = true;
    if (!found) throw Failure{c, "unknown optimizer '" + opt + "'"};
    while (!lp.at_end()) {
      int kc = lp.col();
      std::string key = lp.ident("a step field");
      lp.expect("=");
      int vc = lp.col();
      std::string v = lp.next().text;
      if (key == "lr") p_.train->lr = parse_double(v, vc);
      else if (key == "momentum") p_.train->momentum = parse_double(v, vc);
      else if (key == "weight_decay") p_.train->weight_decay = parse_double(v, vc);
      else if (key == "steps") p_.train->steps = static_cast<int>(parse_int(v, vc));
      else if (key == "amsgrad") p_.train->amsgrad = parse_flag(v, vc);
      else if (key == "nesterov") p_.train->nesterov = parse_flag(v, vc);
      else if (key == "foreach") p_.train->foreach = parse_flag(v, vc);
      else if (key == "accumulate") p_.train->accumulate = parse_flag(v, vc);
      else throw Failure{kc, "unknown step field '" + key + "'"};
    }
  }

  std::string file_;
  std::vector<std::string> lines_;
  size_t line_idx_ = 0;
  int line_no_ = 0;
  Program p_;
  std::map<std::string, int> names_;
  std::map<std::string, int> def_line_;
};

}  // namespace

ParseResult parse_program(const std::string& text, const std::string& file, ParseMode mode) {
  return Parser(text, file).run(mode);
}

ParseResult load_program(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    ParseResult r;
    r.error = ParseError{path, 0, 0, "cannot open file"};
    return r;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_program(ss.str(), path);
}

}  // namespace dlfuzz
