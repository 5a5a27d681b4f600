/*
 * javac's own name resolution as a navigation reference for bench/navigate_lsp.py --links (the
 * Java counterpart of rustdoc's links in bench/navigate_rust.py): parses and attributes every
 * .java file under SOURCE_ROOT in one JavacTask, missing dependencies tolerated (errors are
 * counted, attribution still runs for what resolves), and writes one tab-separated record per
 * name to OUT:
 *
 *   D  file line col name kind start_line           a declaration's name (class, method, field,
 *                                                   variable, parameter, type parameter); start_line
 *                                                   is the declaration's first line (annotations,
 *                                                   modifiers), kind javax.lang.model's ElementKind
 *   L  file line col name target_file line col kind a use (identifier, member select, method
 *                                                   reference) resolved to an in-corpus declaration;
 *                                                   a static import's name links to every member of
 *                                                   that name (overloads: the import names them all)
 *   C  file line col name target_file line col kind a `new T(…)`'s T: the explicit constructor it calls
 *   X  file line col name kind                      resolved outside the corpus (the JDK)
 *   P  file line col name                           a package name
 *   U  file line col name                           javac resolved nothing (a missing dependency)
 *
 * Lines are 1-based, columns 0-based UTF-16 units (Java chars), as LSP counts them; files are
 * relative to SOURCE_ROOT.
 *
 * usage: java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED \
 *             --add-exports jdk.compiler/com.sun.tools.javac.code=ALL-UNNAMED \
 *             bench/JavacNav.java SOURCE_ROOT OUT
 */

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.AnnotatedTypeTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeParameterTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import com.sun.tools.javac.code.Flags;
import com.sun.tools.javac.tree.JCTree;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavacNav {
    static Path root;
    static Trees trees;
    static SourcePositions positions;
    /** Each compilation unit's source text and line starts, by the unit. */
    static final Map<CompilationUnitTree, String> texts = new HashMap<>();
    static final Map<CompilationUnitTree, int[]> lineStarts = new HashMap<>();
    static final Map<CompilationUnitTree, String> rels = new HashMap<>();
    static PrintWriter out;
    static final Map<String, Integer> counts = new HashMap<>();

    public static void main(String[] args) throws IOException {
        root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().equals("module-info.java"))
                    .sorted().collect(Collectors.toList());
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StandardJavaFileManager fm = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8);
        Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromPaths(files);
        List<String> options = List.of(
                "-proc:none", "-implicit:none", "-nowarn", "-encoding", "UTF-8",
                // Errors (the missing dependencies) would stop javac before attribution: go on.
                "-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW", "-Xmaxerrs", "1000000");
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diagnostics, options, null, units);
        long started = System.nanoTime();
        List<CompilationUnitTree> cus = new ArrayList<>();
        task.parse().forEach(cus::add);
        task.analyze();
        trees = Trees.instance(task);
        positions = trees.getSourcePositions();
        long errors = diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        for (CompilationUnitTree cu : cus) {
            String text = cu.getSourceFile().getCharContent(true).toString();
            texts.put(cu, text);
            List<Integer> starts = new ArrayList<>();
            starts.add(0);
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == '\n') starts.add(i + 1);
            }
            lineStarts.put(cu, starts.stream().mapToInt(Integer::intValue).toArray());
            rels.put(cu, root.relativize(Paths.get(cu.getSourceFile().toUri()).normalize()).toString());
        }
        out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8));
        for (CompilationUnitTree cu : cus) {
            new Scanner(cu).scan(new TreePath(cu), null);
        }
        out.close();
        System.err.printf("javac: %d files, %d errors (missing dependencies), %.1f s; records %s%n",
                cus.size(), errors, (System.nanoTime() - started) / 1e9, counts);
    }

    /** "line\tcol" of a char offset: 1-based line, 0-based UTF-16 column. */
    static String place(CompilationUnitTree cu, int offset) {
        int[] starts = lineStarts.get(cu);
        int lo = 0, hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= offset) lo = mid;
            else hi = mid - 1;
        }
        return (lo + 1) + "\t" + (offset - starts[lo]);
    }

    static int lineOf(CompilationUnitTree cu, int offset) {
        return Integer.parseInt(place(cu, offset).split("\t")[0]);
    }

    static boolean isWordChar(char c) {
        return Character.isJavaIdentifierPart(c);
    }

    /** The offset of `name` as a whole word in [from, to), the first (or last) one; -1 if none. */
    static int find(String text, String name, int from, int to, boolean last) {
        if (from < 0) return -1;
        to = Math.min(to < 0 ? text.length() : to, text.length());
        int at = last ? text.lastIndexOf(name, to - name.length()) : text.indexOf(name, from);
        while (at >= from && at >= 0 && at + name.length() <= to) {
            boolean before = at == 0 || !isWordChar(text.charAt(at - 1));
            boolean after = at + name.length() >= text.length() || !isWordChar(text.charAt(at + name.length()));
            if (before && after) return at;
            at = last ? text.lastIndexOf(name, at - 1) : text.indexOf(name, at + 1);
        }
        return -1;
    }

    /** The offset of a declaration's name: from javac's preferred position (the name for methods
     * and variables, the `class` keyword for classes) onwards. */
    static int declarationName(CompilationUnitTree cu, Tree tree, String name) {
        String text = texts.get(cu);
        int pos = ((JCTree) tree).pos;
        long end = positions.getEndPosition(cu, tree);
        int at = find(text, name, pos, end < 0 ? -1 : (int) end, false);
        if (at < 0) at = find(text, name, (int) positions.getStartPosition(cu, tree), end < 0 ? -1 : (int) end, false);
        return at;
    }

    static String nameOf(Tree tree) {
        if (tree instanceof ClassTree) return ((ClassTree) tree).getSimpleName().toString();
        if (tree instanceof MethodTree) {
            String n = ((MethodTree) tree).getName().toString();
            return n;
        }
        if (tree instanceof VariableTree) return ((VariableTree) tree).getName().toString();
        if (tree instanceof TypeParameterTree) return ((TypeParameterTree) tree).getName().toString();
        return null;
    }

    /** "file\tline\tcol" of an element's declaration name inside the corpus, or null. */
    static String target(Element e) {
        TreePath path;
        try {
            path = trees.getPath(e);
        } catch (RuntimeException ex) {
            return null;
        }
        if (path == null || path.getCompilationUnit() == null || !rels.containsKey(path.getCompilationUnit())) return null;
        CompilationUnitTree cu = path.getCompilationUnit();
        Tree leaf = path.getLeaf();
        String name = nameOf(leaf);
        if (name == null) return null;
        if (leaf instanceof MethodTree && name.equals("<init>")) {
            JCTree.JCMethodDecl m = (JCTree.JCMethodDecl) leaf;
            if ((m.mods.flags & Flags.GENERATEDCONSTR) != 0) return null;  // a default constructor
            name = e.getEnclosingElement().getSimpleName().toString();
        }
        int at = declarationName(cu, leaf, name);
        if (at < 0) return null;
        return rels.get(cu) + "\t" + place(cu, at);
    }

    static void emit(String kind, String... fields) {
        counts.merge(kind, 1, Integer::sum);
        out.println(kind + "\t" + String.join("\t", fields));
    }

    static boolean unresolved(Element e) {
        if (e == null) return true;
        ElementKind k = e.getKind();
        if (k == ElementKind.OTHER) return true;
        if (!k.isClass() && !k.isInterface()) return false;  // a variable of a missing type is still resolved
        TypeMirror t;
        try {
            t = e.asType();
        } catch (RuntimeException ex) {
            return true;
        }
        return t != null && t.getKind() == TypeKind.ERROR;
    }

    static class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree cu;
        final String rel;
        final String text;

        Scanner(CompilationUnitTree cu) {
            this.cu = cu;
            this.rel = rels.get(cu);
            this.text = texts.get(cu);
        }

        void use(String name, int at) {
            if (at < 0 || !text.startsWith(name, at) || name.equals("this") || name.equals("super") || name.equals("class") || name.equals("<error>")) return;
            Element e = trees.getElement(getCurrentPath());
            String here = rel + "\t" + place(cu, at) + "\t" + name;
            if (e != null && e.getKind() == ElementKind.PACKAGE) {
                emit("P", here);
            } else if (unresolved(e)) {
                emit("U", here);
            } else {
                String t = target(e);
                if (t != null) emit("L", here, t, e.getKind().toString());
                else emit("X", here, e.getKind().toString());
            }
        }

        void declaration(Tree tree, String name) {
            if (name == null || name.isEmpty()) return;
            int at = declarationName(cu, tree, name);
            if (at < 0) return;
            Element e = trees.getElement(getCurrentPath());
            String kind = e == null ? "OTHER" : e.getKind().toString();
            int start = (int) positions.getStartPosition(cu, tree);
            emit("D", rel + "\t" + place(cu, at) + "\t" + name + "\t" + kind + "\t" + lineOf(cu, start < 0 ? at : start));
        }

        @Override
        public Void visitIdentifier(IdentifierTree t, Void v) {
            use(t.getName().toString(), (int) positions.getStartPosition(cu, t));
            return super.visitIdentifier(t, v);
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree t, Void v) {
            String name = t.getIdentifier().toString();
            long end = positions.getEndPosition(cu, t);
            if (end > 0) use(name, find(text, name, (int) positions.getStartPosition(cu, t), (int) end, true));
            return super.visitMemberSelect(t, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree t, Void v) {
            String name = t.getName().toString();
            if (name.equals("<init>")) name = "new";
            long end = positions.getEndPosition(cu, t);
            if (end > 0 && !name.equals("new")) use(name, find(text, name, (int) positions.getStartPosition(cu, t), (int) end, true));
            return super.visitMemberReference(t, v);
        }

        @Override
        public Void visitImport(ImportTree t, Void v) {
            Tree q = t.getQualifiedIdentifier();
            if (!t.isStatic() || !(q instanceof MemberSelectTree)) return super.visitImport(t, v);
            // `import static a.B.m;`: javac attributes the class, not the member, which may be
            // overloaded; the name refers to every member of B so named.
            MemberSelectTree select = (MemberSelectTree) q;
            String name = select.getIdentifier().toString();
            TreePath selectPath = new TreePath(getCurrentPath(), select);
            scan(new TreePath(selectPath, select.getExpression()), v);
            long end = positions.getEndPosition(cu, select);
            int at = end > 0 ? find(text, name, (int) positions.getStartPosition(cu, select), (int) end, true) : -1;
            if (name.equals("*") || at < 0) return null;
            Element owner = trees.getElement(new TreePath(selectPath, select.getExpression()));
            String here = rel + "\t" + place(cu, at) + "\t" + name;
            if (!(owner instanceof TypeElement) || unresolved(owner)) {
                emit("U", here);
                return null;
            }
            boolean any = false;
            for (Element member : owner.getEnclosedElements()) {
                if (!member.getSimpleName().contentEquals(name)) continue;
                String where = target(member);
                if (where != null) {
                    emit("L", here, where, member.getKind().toString());
                    any = true;
                }
            }
            if (!any) emit("X", here, "STATIC_IMPORT");
            return null;
        }

        @Override
        public Void visitNewClass(NewClassTree t, Void v) {
            Element ctor = trees.getElement(getCurrentPath());
            Tree id = t.getIdentifier();
            while (id instanceof ParameterizedTypeTree || id instanceof AnnotatedTypeTree) {
                id = id instanceof ParameterizedTypeTree ? ((ParameterizedTypeTree) id).getType() : ((AnnotatedTypeTree) id).getUnderlyingType();
            }
            String name = id instanceof IdentifierTree ? ((IdentifierTree) id).getName().toString()
                    : id instanceof MemberSelectTree ? ((MemberSelectTree) id).getIdentifier().toString() : null;
            if (name != null && ctor != null && !unresolved(ctor) && t.getClassBody() == null) {
                String where = target(ctor);
                long end = positions.getEndPosition(cu, id);
                int at = end > 0 ? find(text, name, (int) positions.getStartPosition(cu, id), (int) end, true) : -1;
                if (where != null && at >= 0) emit("C", rel + "\t" + place(cu, at) + "\t" + name, where, ctor.getKind().toString());
            }
            return super.visitNewClass(t, v);
        }

        @Override
        public Void visitClass(ClassTree t, Void v) {
            declaration(t, t.getSimpleName().toString());
            return super.visitClass(t, v);
        }

        @Override
        public Void visitMethod(MethodTree t, Void v) {
            JCTree.JCMethodDecl m = (JCTree.JCMethodDecl) t;
            if ((m.mods.flags & Flags.GENERATEDCONSTR) == 0) {
                String name = t.getName().toString();
                if (name.equals("<init>")) {
                    Element e = trees.getElement(getCurrentPath());
                    name = e == null ? null : e.getEnclosingElement().getSimpleName().toString();
                }
                declaration(t, name);
            }
            return super.visitMethod(t, v);
        }

        @Override
        public Void visitVariable(VariableTree t, Void v) {
            declaration(t, t.getName().toString());
            return super.visitVariable(t, v);
        }

        @Override
        public Void visitTypeParameter(TypeParameterTree t, Void v) {
            declaration(t, t.getName().toString());
            return super.visitTypeParameter(t, v);
        }
    }
}
